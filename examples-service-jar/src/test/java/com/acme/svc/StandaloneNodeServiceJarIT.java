package com.acme.svc;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.rpcc.client.RpccClient;
import io.rpcc.core.StaticNameResolver;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The service jar as users deploy it on the standalone node: copied into each node's services directory,
 * the node's distribution started with {@code java -jar rpcc-node.jar} as its own process (two of
 * them), the {@code @ServiceMethod} class named in {@code RPCC_SERVICES_CLASSES}. A client in this JVM
 * runs the checkout chain a -> b -> a, whose Java chaining function uses the jar's types at both nodes.
 */
class StandaloneNodeServiceJarIT {
    private static final Duration START = Duration.ofSeconds(90);

    @TempDir
    Path work;

    @Test
    void aChainingFunctionUsingTheServiceJarsTypesRunsOnStandaloneNodesWithPartialReplies() throws Exception {
        int portA = freePort(), portB = freePort();
        String peers = "a=127.0.0.1:" + portA + ",b=127.0.0.1:" + portB;
        try (NodeProcess a = NodeProcess.start("a", work.resolve("a"), env("a", portA, peers));
             NodeProcess b = NodeProcess.start("b", work.resolve("b"), env("b", portB, peers))) {
            assertEquals("rpcc node 'a' ready at 127.0.0.1:" + portA, a.awaitLine("rpcc node 'a' ready", START));
            assertEquals("rpcc node 'b' ready at 127.0.0.1:" + portB, b.awaitLine("rpcc node 'b' ready", START));
            // ready once warm: in plaintext (by-trust) its Java functions run in runners, started with the node
            assertTrue(a.output().contains("rpcc node 'a' warmed its chaining-function compilers and function runners in"),
                    a.output());

            StaticNameResolver names = new StaticNameResolver()
                    .register("a", new InetSocketAddress("127.0.0.1", portA))
                    .register("b", new InetSocketAddress("127.0.0.1", portB));
            try (RpccClient client = RpccClient.builder().resolver(names).types(Checkouts.types())
                    .timeout(Duration.ofSeconds(60)).build().start()) {
                Checkouts.runAndCheck(client, "a", "b", "a");
                Checkouts.runStaticRouteAndCheck(client, "a", "b");
            } catch (RuntimeException | AssertionError e) {
                throw new AssertionError(e + "\n" + a.output() + "\n" + b.output(), e);
            }

            assertEquals(0, a.terminate(Duration.ofSeconds(30)), a.output());
            assertEquals(0, b.terminate(Duration.ofSeconds(30)), b.output());
            assertTrue(a.stdout().contains("rpcc node 'a' stopped"), a.output());
            assertTrue(b.output().contains("(transport epoll)"), b.output());
        }
    }

    /** Node {@code name}'s configuration: its own services directory holding a copy of the jar. */
    private Map<String, String> env(String name, int port, String peers) throws IOException {
        Path services = Files.createDirectories(work.resolve(name).resolve("services"));
        Files.copy(Checkouts.serviceJar(), services.resolve("acme-orders.jar"), StandardCopyOption.REPLACE_EXISTING);
        return Map.of("RPCC_NAME", name, "RPCC_BIND", "127.0.0.1", "RPCC_PORT", Integer.toString(port),
                "RPCC_HEALTH_PORT", "0", "RPCC_PEERS", peers, "RPCC_SERVICES_PATH", services.toString(),
                "RPCC_SERVICES_CLASSES", OrderDesk.class.getName(), "RPCC_SHUTDOWN_GRACE", "2s",
                // b on Netty's native epoll, a on NIO: the chain crosses both
                "RPCC_TRANSPORT", name.equals("b") ? "epoll" : "nio");
    }

    private static int freePort() throws IOException {
        try (ServerSocket s = new ServerSocket(0)) {
            return s.getLocalPort();
        }
    }
}
