package io.rpcc.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.rpcc.client.ChainCall;
import io.rpcc.client.RpccClient;
import io.rpcc.core.ChainResult;
import io.rpcc.core.NodeTls;
import io.rpcc.core.StaticNameResolver;
import io.rpcc.core.StaticRoute;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.KeyStore;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * rpcc loads the certificates and keys that the documented recipe makes with openssl (and keytool):
 * PEM files with {@link NodeTls#fromPem} and PKCS#12 stores with {@link NodeTls#fromKeyStore}, and
 * runs a chain over mutual TLS with them.
 */
class TlsFilesTest {
    @TempDir
    Path dir;

    private void run(String... command) throws IOException, InterruptedException {
        Process p = new ProcessBuilder(command).directory(dir.toFile()).redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertEquals(0, p.waitFor(), () -> String.join(" ", command) + " failed:\n" + out);
    }

    private void makeCertificates(String... nodes) throws Exception {
        assumeTrue(opensslRuns(), "skipped: these tests run the documented openssl recipe, and openssl is not "
                + "installed (or does not run) on this machine");
        Path script = dir.resolve("make-certs.sh");
        try (InputStream in = TlsFilesTest.class.getResourceAsStream("/tls/make-certs.sh")) {
            Files.copy(in, script);
        }
        List<String> command = new ArrayList<>(List.of("bash", script.toString(), dir.toString()));
        command.addAll(List.of(nodes));
        run(command.toArray(String[]::new));
    }

    private static boolean opensslRuns() throws InterruptedException {
        try {
            Process p = new ProcessBuilder("openssl", "version").redirectErrorStream(true).start();
            p.getInputStream().readAllBytes();
            return p.waitFor() == 0;
        } catch (IOException e) {
            return false; // not on the PATH
        }
    }

    private NodeTls pem(String node) {
        return NodeTls.fromPem(dir.resolve(node + ".crt"), dir.resolve(node + ".key"), dir.resolve("ca.crt"));
    }

    private static void chainRuns(NodeTls s1Tls, NodeTls s2Tls, NodeTls clientTls) {
        StaticNameResolver names = new StaticNameResolver();
        try (RpccServer s1 = RpccServer.builder("s1").resolver(names).tls(s1Tls).service("echo", p -> p).build().start();
             RpccServer s2 = RpccServer.builder("s2").resolver(names).tls(s2Tls).service("who", p -> "s2 got " + p)
                     .build().start();
             RpccClient client = RpccClient.builder().name("app").resolver(names).tls(clientTls).build().start()) {
            names.register("s1", s1.address());
            names.register("s2", s2.address());
            ChainResult r = client.runChain(ChainCall.along(
                    StaticRoute.of(StaticRoute.hop("s1", "echo"), StaticRoute.hop("s2", "who")), "x"));
            assertEquals("s2 got x", r.value());
        }
    }

    @Test
    void pemFilesMadeWithTheOpensslRecipe() throws Exception {
        makeCertificates("s1", "s2", "app");
        assertEquals(Set.of("s1"), pem("s1").nodeNames());
        chainRuns(pem("s1"), pem("s2"), pem("app"));
    }

    @Test
    void pkcs12StoresMadeWithOpensslAndKeytool() throws Exception {
        makeCertificates("s1", "s2", "app");
        String keytool = Path.of(System.getProperty("java.home"), "bin", "keytool").toString();
        run(keytool, "-importcert", "-noprompt", "-alias", "rpcc-ca", "-file", "ca.crt", "-keystore", "trust.p12",
                "-storetype", "PKCS12", "-storepass", "changeit");
        KeyStore trust = load("trust.p12");
        List<NodeTls> tls = new ArrayList<>();
        for (String node : List.of("s1", "s2", "app")) {
            run("openssl", "pkcs12", "-export", "-in", node + ".crt", "-inkey", node + ".key", "-name", node,
                    "-out", node + ".p12", "-passout", "pass:changeit");
            tls.add(NodeTls.fromKeyStore(load(node + ".p12"), "changeit".toCharArray(), trust));
        }
        chainRuns(tls.get(0), tls.get(1), tls.get(2));
    }

    @Test
    void aKeyInAnotherFormatIsRefusedWithTheCommandThatConvertsIt() throws Exception {
        makeCertificates("s1");
        run("openssl", "pkey", "-in", "s1.key", "-traditional", "-out", "s1-traditional.key");
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> NodeTls.fromPem(
                dir.resolve("s1.crt"), dir.resolve("s1-traditional.key"), dir.resolve("ca.crt")));
        assertTrue(e.getMessage().contains("openssl pkcs8 -topk8 -nocrypt"), e.getMessage());
    }

    private KeyStore load(String file) throws Exception {
        KeyStore ks = KeyStore.getInstance("PKCS12");
        try (InputStream in = Files.newInputStream(dir.resolve(file))) {
            ks.load(in, "changeit".toCharArray());
        }
        return ks;
    }
}
