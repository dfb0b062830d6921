package io.rpcc.testcontainers;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.jar.JarEntry;
import java.util.jar.JarInputStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.testcontainers.containers.Network;

/** What {@link RpccNodeContainer} configures before a container exists: no Docker needed. */
class RpccNodeContainerConfigTest {
    private static final String IMAGE = "rpcc-node:0.1.0-SNAPSHOT";

    @Test
    void theNodeNameIsItsAliasAndAdvertisedHostAndTheNodeWaitsForItsReadyLine() {
        RpccNodeContainer node = new RpccNodeContainer(IMAGE, "node-a");

        assertEquals("node-a", node.getEnvMap().get("RPCC_NAME"));
        assertEquals("node-a", node.getEnvMap().get("RPCC_ADVERTISED_HOST"));
        assertEquals("7300", node.getEnvMap().get("RPCC_PORT"));
        assertEquals("any", node.getEnvMap().get("RPCC_LIMITS_OUTBOUND_POLICY"), "a test's container network is trusted");
        assertTrue(node.getNetworkAliases().contains("node-a"), node.getNetworkAliases().toString());
        assertEquals(List.of(7300, 7301), node.getExposedPorts());
        assertTrue(node.getExtraHosts().contains("host.docker.internal:host-gateway"), node.getExtraHosts().toString());
        assertEquals("node-a:7300", node.getNetworkAddress());
    }

    @Test
    void anImageThatIsNotDeclaredCompatibleIsRefused() {
        IllegalStateException e = assertThrows(IllegalStateException.class, () -> new RpccNodeContainer("redis:7", "node-a"));
        assertTrue(e.getMessage().contains("rpcc-node"), e.getMessage());
    }

    @Test
    void aNodeNameThatIsNoHostNameIsRefusedWithTheRule() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> new RpccNodeContainer(IMAGE, "Node_A"));
        assertTrue(e.getMessage().contains("'Node_A' is not a valid host name"), e.getMessage());
    }

    @Test
    void nodePropertiesBecomeRpccEnvironmentVariables() {
        RpccNodeContainer node = new RpccNodeContainer(IMAGE, "n").withNodeProperty("rpcc.shutdown.grace", "2s")
                .withNodeProperty("rpcc.repository.node", "repo").withRepository();

        assertEquals("2s", node.getEnvMap().get("RPCC_SHUTDOWN_GRACE"));
        assertEquals("repo", node.getEnvMap().get("RPCC_REPOSITORY_NODE"));
        assertEquals("true", node.getEnvMap().get("RPCC_REPOSITORY_ENABLED"));
    }

    @Test
    void peersAreNamedByTheirAliasOnTheSharedNetwork() {
        try (Network network = Network.newNetwork()) {
            RpccNodeContainer a = new RpccNodeContainer(IMAGE, "node-a").withNetwork(network);
            RpccNodeContainer b = new RpccNodeContainer(IMAGE, "node-b").withNetwork(network);
            RpccNodeContainer c = new RpccNodeContainer(IMAGE, "node-c").withNetwork(network);
            a.withPeers(a, b, c).withPeers(b);

            a.configure();

            assertEquals("node-b=node-b:7300,node-c=node-c:7300", a.getEnvMap().get("RPCC_PEERS"));
        }
    }

    @Test
    void peersWithoutASharedNetworkAreRefused() {
        RpccNodeContainer a = new RpccNodeContainer(IMAGE, "node-a");
        a.withPeers(new RpccNodeContainer(IMAGE, "node-b"));

        IllegalStateException e = assertThrows(IllegalStateException.class, a::configure);
        assertTrue(e.getMessage().contains("must share a network"), e.getMessage());
    }

    @Test
    void serviceClassesAreListedAndPackedWithEveryClassNestedInTheirOutermostClass() throws IOException {
        RpccNodeContainer node = new RpccNodeContainer(IMAGE, "n").withServices(ChainServices.class, NestingServices.Nested.class);
        node.configure();

        assertEquals(ChainServices.class.getName() + "," + NestingServices.Nested.class.getName(),
                node.getEnvMap().get("RPCC_SERVICES_CLASSES"));
        assertEquals(List.of("io/rpcc/testcontainers/ChainServices.class",
                "io/rpcc/testcontainers/NestingServices.class",
                "io/rpcc/testcontainers/NestingServices$1.class",
                "io/rpcc/testcontainers/NestingServices$Hidden.class",
                "io/rpcc/testcontainers/NestingServices$Nested.class"),
                entries(ServiceJar.of(List.of(ChainServices.class, NestingServices.Nested.class))));
    }

    @Test
    void aServiceModuleBecomesTheJarsServiceLoaderProviderAndIsNotListedAsAServiceClass() throws IOException {
        RpccNodeContainer node = new RpccNodeContainer(IMAGE, "n").withServices(GreetingModule.class, ChainServices.class);
        node.configure();

        assertEquals(ChainServices.class.getName(), node.getEnvMap().get("RPCC_SERVICES_CLASSES"));
        byte[] jar = ServiceJar.of(List.of(GreetingModule.class, ChainServices.class));
        assertTrue(entries(jar).contains("META-INF/services/io.rpcc.node.ServiceModule"), entries(jar).toString());
        assertEquals(GreetingModule.class.getName() + "\n", entry(jar, "META-INF/services/io.rpcc.node.ServiceModule"));
    }

    @Test
    void aServiceJarIsCopiedIntoTheServicesDirectoryAndAMissingOneIsRefused(@TempDir Path dir) throws IOException {
        Path jar = Files.write(dir.resolve("pricing.jar"), ServiceJar.of(List.of(ChainServices.class)));

        RpccNodeContainer node = new RpccNodeContainer(IMAGE, "n").withServices(jar);

        assertEquals(List.of("/opt/rpcc/services/pricing.jar"), node.getCopyToFileContainerPathMap().values().stream().toList());
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> node.withServices(dir.resolve("missing.jar")));
        assertTrue(e.getMessage().contains("no service jar at") && e.getMessage().contains("missing.jar"), e.getMessage());
    }

    @Test
    void aClassTheNodeCannotInstantiateByNameIsRefused() {
        class Local {
        }
        IllegalArgumentException local = assertThrows(IllegalArgumentException.class,
                () -> new RpccNodeContainer(IMAGE, "n").withServices(Local.class));
        assertTrue(local.getMessage().contains("cannot be loaded by name"), local.getMessage());

        IllegalArgumentException hidden = assertThrows(IllegalArgumentException.class,
                () -> new RpccNodeContainer(IMAGE, "n").withServices(NestingServices.Hidden.class));
        assertTrue(hidden.getMessage().contains("NestingServices$Hidden is not public"), hidden.getMessage());
    }

    @Test
    void theRyukImageIsTheOneTestcontainersStartsWithItsTag() {
        String ryuk = DockerPreflight.ryukImage().asCanonicalNameString();
        assertTrue(ryuk.matches("testcontainers/ryuk:\\d+\\.\\d+\\.\\d+"), ryuk);
    }

    @Test
    void aClientResolverNeedsStartedContainers() {
        IllegalStateException e = assertThrows(IllegalStateException.class,
                () -> RpccNodeContainer.clientResolver(new RpccNodeContainer(IMAGE, "node-a")));
        assertTrue(e.getMessage().contains("node 'node-a' is not running"), e.getMessage());
    }

    private static String entry(byte[] jar, String name) throws IOException {
        try (JarInputStream in = new JarInputStream(new ByteArrayInputStream(jar))) {
            for (JarEntry e = in.getNextJarEntry(); e != null; e = in.getNextJarEntry()) {
                if (e.getName().equals(name)) {
                    return new String(in.readAllBytes(), StandardCharsets.UTF_8);
                }
            }
        }
        throw new AssertionError("no " + name + " in the jar");
    }

    private static List<String> entries(byte[] jar) throws IOException {
        List<String> names = new ArrayList<>();
        try (JarInputStream in = new JarInputStream(new ByteArrayInputStream(jar))) {
            for (JarEntry e = in.getNextJarEntry(); e != null; e = in.getNextJarEntry()) {
                names.add(e.getName());
            }
        }
        return names;
    }
}
