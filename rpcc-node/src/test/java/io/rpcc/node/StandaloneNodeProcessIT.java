package io.rpcc.node;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.rpcc.client.ReplySet;
import io.rpcc.client.RpccClient;
import io.rpcc.core.ChainResult;
import io.rpcc.core.ChainState;
import io.rpcc.core.ChainingFunctionSource;
import io.rpcc.core.HopUnreachableException;
import io.rpcc.core.StaticNameResolver;
import io.rpcc.core.TypeRegistry;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.URI;
import java.net.URL;
import java.net.URLClassLoader;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.jar.JarFile;
import java.util.jar.Manifest;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The packaged node ({@code target/dist}) started as separate processes, as users run it: chains
 * from a client in this JVM through two node processes, partial replies, a JavaScript and a Java
 * chaining function (the Java one fetched from the repository role), the health endpoint, and a
 * graceful exit on SIGTERM; a bad configuration exits with 2 naming the key.
 */
class StandaloneNodeProcessIT {
    private static final Duration START = Duration.ofSeconds(60);

    @TempDir
    Path work;

    @BeforeEach
    void needsTheDist() {
        NodeProcess.requireIntegrationTestPhase();
    }

    @Test
    void theDistributionIsARunnableJarWithItsLibraries() throws IOException {
        Path jar = NodeProcess.DIST.resolve("rpcc-node.jar");
        assertTrue(Files.isRegularFile(jar), jar + " is missing: the dist is built at package");
        try (JarFile f = new JarFile(jar.toFile())) {
            Manifest m = f.getManifest();
            assertEquals("io.rpcc.node.RpccNode", m.getMainAttributes().getValue("Main-Class"));
            assertEquals("io.rpcc.node", m.getMainAttributes().getValue("Automatic-Module-Name"));
            List<String> classPath = List.of(m.getMainAttributes().getValue("Class-Path").split(" "));
            for (String entry : classPath) {
                assertTrue(Files.isRegularFile(NodeProcess.DIST.resolve(entry)), entry + " is in Class-Path but not in the dist");
            }
            assertTrue(classPath.stream().anyMatch(e -> e.startsWith("lib/rpcc-js-")), "rpcc-js: " + classPath);
            assertTrue(classPath.stream().anyMatch(e -> e.startsWith("lib/js-language-")), "GraalJS: " + classPath);
        }
    }

    @Test
    void chainsRunThroughTwoNodeProcessesWhichStopGracefullyOnSigterm() throws Exception {
        Path services = ServiceJar.demo().writeTo(work.resolve("services/demo.jar")).getParent();
        int portA = freePort(), portB = freePort(), healthA = freePort(), healthB = freePort();
        String peers = "a=127.0.0.1:" + portA + ",b=127.0.0.1:" + portB;
        try (NodeProcess a = NodeProcess.start("a", work.resolve("a"), Map.of("RPCC_NAME", "a",
                     "RPCC_BIND", "127.0.0.1", "RPCC_PORT", "" + portA, "RPCC_HEALTH_PORT", "" + healthA,
                     "RPCC_PEERS", peers, "RPCC_SERVICES_PATH", services.toString(),
                     "RPCC_SERVICES_CLASSES", "demo.Greeter", "RPCC_REPOSITORY_ENABLED", "true"));
             NodeProcess b = NodeProcess.start("b", work.resolve("b"), Map.of("RPCC_NAME", "b",
                     "RPCC_BIND", "127.0.0.1", "RPCC_PORT", "" + portB, "RPCC_HEALTH_PORT", "" + healthB,
                     "RPCC_PEERS", peers, "RPCC_SERVICES_PATH", services.toString(), "RPCC_SHUTDOWN_GRACE", "5s"));
             URLClassLoader userClasses = new URLClassLoader(new URL[] {services.resolve("demo.jar").toUri().toURL()},
                     getClass().getClassLoader())) {
            assertEquals("rpcc node 'a' ready at 127.0.0.1:" + portA, a.awaitLine("rpcc node 'a' ready", START));
            assertEquals("rpcc node 'b' ready at 127.0.0.1:" + portB, b.awaitLine("rpcc node 'b' ready", START));
            assertEquals(200, get(healthA, "/ready"));
            assertEquals(200, get(healthA, "/live"));
            assertEquals(200, get(healthA, "/metrics")); // on by default (rpcc.metrics.enabled)
            assertTrue(Files.isDirectory(work.resolve("a/functions")), "the repository's store, relative to the working directory");

            StaticNameResolver names = new StaticNameResolver()
                    .register("a", new InetSocketAddress("127.0.0.1", portA))
                    .register("b", new InetSocketAddress("127.0.0.1", portB));
            Class<?> item = userClasses.loadClass("demo.Item"); // the module registered it on the nodes
            RpccClient client = RpccClient.builder().resolver(names).types(TypeRegistry.of(item))
                    .repository("a").inlineFunctionLimit(200).timeout(Duration.ofSeconds(60)).build().start();
            try {
                // a plain call to a @ServiceMethod class named in rpcc.services.classes
                assertEquals("hello world", client.call("a", "greet", "world").get(60, TimeUnit.SECONDS).value());
                // a user type registered by the ServiceModule, decoded here
                assertEquals("Item[name=pen, quantity=3]",
                        String.valueOf(client.call("a", "item", "pen").get(60, TimeUnit.SECONDS).value()));

                // two hops, a -> b, with a JavaScript chaining function (rpcc-js is in the dist)
                ChainResult js = client.runChain("a", "greet", "world", ChainingFunctionSource.javascript("""
                        (state, result) => state.step === 'a'
                            ? rpcc.call('b', 'echo', result + ' from a', {step: 'b'})
                            : rpcc.end(result + ' via ' + rpcc.node)
                        """), ChainState.of("step", "a"));
                assertEquals("hello world from a via b", js.value());
                assertEquals(List.of("a", "b"), js.path());

                // two hops with a Java chaining function larger than the inline limit: uploaded to a's
                // repository, fetched from there by b
                ChainResult java = client.runChain("b", "echo", "x", ChainingFunctionSource.java("""
                        import io.rpcc.core.*;
                        public class Route implements ChainingFunction {
                            // padding so that the source is over the client's inline limit (200 chars) .........
                            public NextHop apply(ChainState state, Object result) {
                                return state.get("step", String.class).equals("b")
                                        ? NextHop.call("a", "greet", result + "!", state.with("step", "a"))
                                        : NextHop.end(result);
                            }
                        }
                        """), ChainState.of("step", "b"));
                assertEquals("hello x!", java.value());
                assertEquals(List.of("b", "a"), java.path());
                try (var stored = Files.list(work.resolve("a/functions"))) {
                    assertTrue(stored.findAny().isPresent(), "the function is in a's store");
                }

                // partial replies from a process straight back to this JVM
                ReplySet<String> replies = client.callWithReplies("b", "count", 4, String.class);
                List<String> got = new ArrayList<>();
                replies.forEach(got::add);
                assertEquals(List.of("part 1", "part 2", "part 3", "part 4"), got);
                assertEquals("counted 4 at b", replies.result().get(60, TimeUnit.SECONDS).value());

                // SIGTERM: b drains, says so, exits with 0, and a chain to it then fails naming it
                assertEquals(0, b.terminate(Duration.ofSeconds(30)), b.stderr());
                assertTrue(b.stdout().contains("rpcc node 'b' stopped"), b.stdout().toString());
                assertThrows(IOException.class, () -> get(healthB, "/live"), "the health endpoint is gone with the node");
                ExecutionException e = assertThrows(ExecutionException.class,
                        () -> client.call("b", "echo", "x").get(60, TimeUnit.SECONDS));
                assertTrue(e.getCause() instanceof HopUnreachableException, String.valueOf(e.getCause()));
                assertTrue(e.getCause().getMessage().contains("'b'"), e.getCause().getMessage());
                // a keeps serving
                assertEquals("hello again", client.call("a", "greet", "again").get(60, TimeUnit.SECONDS).value());
            } finally {
                client.close();
            }
            assertEquals(0, a.terminate(Duration.ofSeconds(30)), a.stderr());
            assertTrue(a.stdout().contains("rpcc node 'a' stopped"), a.stdout().toString());
        }
    }

    @Test
    void aBadConfigurationExitsWith2NamingTheKey() throws Exception {
        try (NodeProcess bad = NodeProcess.start("bad", work.resolve("bad"),
                Map.of("RPCC_NAME", "bad", "RPCC_LIMITS_MAX_HOPS", "lots"))) {
            assertEquals(2, bad.awaitExit(START));
            String err = bad.stderr().strip();
            assertEquals("rpcc node: bad configuration: rpcc.limits.max-hops = \"lots\" (from environment variable "
                    + "RPCC_LIMITS_MAX_HOPS): expected an integer from 1 to 2147483647", err);
            assertEquals(List.of(), bad.stdout());
        }
        Path file = Files.writeString(work.resolve("node.properties"), "rpcc.name = c\nrpcc.services.classes = demo.Missing\n"
                + "rpcc.health.port = 0\nrpcc.port = 0\n");
        ServiceJar.demo().writeTo(work.resolve("c/services/demo.jar"));
        try (NodeProcess missing = NodeProcess.start("c", work.resolve("c"), Map.of(), "--config", file.toString())) {
            assertEquals(2, missing.awaitExit(START));
            String err = missing.stderr();
            assertTrue(err.contains("rpcc node 'c': bad configuration: rpcc.services.classes = \"demo.Missing\" (from " + file + ")")
                    && err.contains("demo.Missing cannot be loaded") && err.contains("1 jar(s) in "), err);
        }
    }

    private static int get(int port, String path) throws IOException, InterruptedException {
        try (HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build()) {
            return http.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path))
                    .timeout(Duration.ofSeconds(10)).build(), HttpResponse.BodyHandlers.discarding()).statusCode();
        }
    }

    private static int freePort() throws IOException {
        try (ServerSocket s = new ServerSocket(0)) {
            return s.getLocalPort();
        }
    }
}
