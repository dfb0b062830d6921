package com.acme.svc;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.rpcc.client.RpccClient;
import io.rpcc.core.StaticNameResolver;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The service jar as users deploy it on the standalone node: copied into each node's services directory,
 * the node's distribution started with {@code java -jar rpcc-node.jar} as its own process (two of
 * them), the classes implementing its service interfaces named in {@code RPCC_SERVICES_CLASSES}. A client
 * in this JVM runs, against the one node pair: the checkout chain a -> b -> a, whose Java chaining
 * function uses the jar's types at both nodes; a static route; the same checkout as a sequential chain
 * of typed calls; an upload streamed into a streaming service function; a stream refused by b's small
 * configured stream budget ({@code RPCC_STREAMS_BUFFER_BYTES}) while b goes on serving; and an HTTP/JSON
 * service (a JDK {@code HttpServer} here) that a wraps by configuration alone
 * ({@code RPCC_LEGACY_HTTP_LEGACY_QUOTE}), which sees the originator's identity. On another node pair,
 * atomic order chains ({@link AtomicOrders}) over the jar's transactional state, stock at a and payment at b.
 */
class StandaloneNodeServiceJarIT {
    private static final Duration START = Duration.ofSeconds(90);

    @TempDir
    Path work;

    @Test
    void theServiceJarsChainsStreamsAndAWrappedHttpServiceRunOnStandaloneNodes() throws Exception {
        int portA = freePort(), portB = freePort(), healthB = freePort();
        String peers = "a=127.0.0.1:" + portA + ",b=127.0.0.1:" + portB;
        LegacyPricing legacy = LegacyPricing.start("127.0.0.1");
        Map<String, String> envA = new HashMap<>(env("a", portA, peers));
        // an HTTP/JSON service wrapped by configuration only: the service function legacy-quote, results read as
        // the jar's Quote, the token for chains without a credential of their own from the node's environment
        envA.put("RPCC_LEGACY_HTTP_LEGACY_QUOTE", "POST " + legacy.url("127.0.0.1") + "/quotes/{id} result=com.acme.svc.Quote"
                + " token-env=ACME_PRICING_TOKEN timeout=10s");
        envA.put("ACME_PRICING_TOKEN", "node-a-token");
        envA.put("RPCC_STREAMS_WINDOW_BYTES", "1MiB");
        Map<String, String> envB = new HashMap<>(env("b", portB, peers));
        envB.put("RPCC_STREAMS_BUFFER_BYTES", "256KiB"); // one stream's first room: a second at once is refused
        envB.put("RPCC_HEALTH_PORT", Integer.toString(healthB)); // its /metrics count the refusal
        try (legacy;
             NodeProcess a = NodeProcess.start("a", work.resolve("a"), envA);
             NodeProcess b = NodeProcess.start("b", work.resolve("b"), envB)) {
            assertEquals("rpcc node 'a' ready at 127.0.0.1:" + portA, a.awaitLine("rpcc node 'a' ready", START));
            assertEquals("rpcc node 'b' ready at 127.0.0.1:" + portB, b.awaitLine("rpcc node 'b' ready", START));
            // ready once warm: in plaintext (by-trust) its Java functions run in runners, started with the node
            assertTrue(a.output().contains("rpcc node 'a' warmed its chaining-function compilers and function runners in"),
                    a.output());

            StaticNameResolver names = new StaticNameResolver()
                    .register("a", new InetSocketAddress("127.0.0.1", portA))
                    .register("b", new InetSocketAddress("127.0.0.1", portB));
            try (RpccClient client = RpccClient.builder().name("shop").resolver(names).types(Checkouts.types())
                    .timeout(Duration.ofSeconds(60)).build().start()) {
                Checkouts.runAndCheck(client, "a", "b", "a");
                Checkouts.runStaticRouteAndCheck(client, "a", "b");
                Checkouts.runSequentialAndCheck(client, "a", "b", "a");
                Checkouts.uploadAndCheck(client, "a", 8);
                Checkouts.aStreamOverTheNodesBudgetIsRefusedAndTheNodeGoesOnServing(client, "b", () -> metrics(healthB));
                legacy.checkAWrappedCallSeesTheOriginatorsIdentity(client, "b", "a", "node-a-token");
            } catch (RuntimeException | AssertionError e) {
                throw new AssertionError(e + "\n" + a.output() + "\n" + b.output(), e);
            }

            assertEquals(0, a.terminate(Duration.ofSeconds(30)), a.output());
            assertEquals(0, b.terminate(Duration.ofSeconds(30)), b.output());
            assertTrue(a.stdout().contains("rpcc node 'a' stopped"), a.output());
            assertTrue(b.output().contains("(transport epoll)"), b.output());
            assertTrue(a.output().contains("legacy-quote (POST " + legacy.url("127.0.0.1") + "/quotes/{id} -> com.acme.svc.Quote)"),
                    "a's start-up line names the endpoint it wraps\n" + a.output());
        }
    }

    /**
     * Atomic order chains over the service jar's transactional state ({@link Stockroom} at a, {@link Ledger}
     * at b, both named in {@code RPCC_SERVICES_CLASSES}): one commits at both nodes, a payment refused at b
     * leaves a's stock unchanged, and conflicting orders from two clients at once all end, committed or
     * refused, none half done.
     */
    @Test
    void atomicOrdersOverTheServiceJarsStateCommitAtBothStandaloneNodesOrAtNeither() throws Exception {
        int portA = freePort(), portB = freePort();
        String peers = "a=127.0.0.1:" + portA + ",b=127.0.0.1:" + portB;
        try (NodeProcess a = NodeProcess.start("a", work.resolve("a"), env("a", portA, peers));
             NodeProcess b = NodeProcess.start("b", work.resolve("b"), env("b", portB, peers))) {
            a.awaitLine("rpcc node 'a' ready", START);
            b.awaitLine("rpcc node 'b' ready", START);
            StaticNameResolver names = new StaticNameResolver()
                    .register("a", new InetSocketAddress("127.0.0.1", portA))
                    .register("b", new InetSocketAddress("127.0.0.1", portB));
            try (RpccClient client = RpccClient.builder().name("shop").resolver(names).types(Checkouts.types())
                         .timeout(Duration.ofSeconds(60)).build().start();
                 RpccClient other = RpccClient.builder().name("shop-2").resolver(names).types(Checkouts.types())
                         .timeout(Duration.ofSeconds(60)).build().start()) {
                AtomicOrders.commitsAtBoth(client, "a", "b", "T-1");
                AtomicOrders.aRefusedPaymentLeavesTheStockUnchanged(client, "a", "b", "T-2");
                AtomicOrders.conflictingOrdersFromTwoClientsAllEnd(client, other, "a", "b", 6);
            } catch (RuntimeException | AssertionError e) {
                throw new AssertionError(e + "\n" + a.output() + "\n" + b.output(), e);
            }
            assertEquals(0, a.terminate(Duration.ofSeconds(30)), a.output());
            assertEquals(0, b.terminate(Duration.ofSeconds(30)), b.output());
        }
    }

    private static String metrics(int port) {
        try (HttpClient http = HttpClient.newHttpClient()) {
            return http.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/metrics")).build(),
                    HttpResponse.BodyHandlers.ofString()).body();
        } catch (IOException e) {
            throw new java.io.UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    /** Node {@code name}'s configuration: its own services directory holding a copy of the jar. */
    private Map<String, String> env(String name, int port, String peers) throws IOException {
        Path services = Files.createDirectories(work.resolve(name).resolve("services"));
        Files.copy(Checkouts.serviceJar(), services.resolve("acme-orders.jar"), StandardCopyOption.REPLACE_EXISTING);
        return Map.of("RPCC_NAME", name, "RPCC_BIND", "127.0.0.1", "RPCC_PORT", Integer.toString(port),
                "RPCC_HEALTH_PORT", "0", "RPCC_PEERS", peers, "RPCC_SERVICES_PATH", services.toString(),
                "RPCC_SERVICES_CLASSES", String.join(",", OrderDesk.class.getName(), Store.class.getName(),
                        Stockroom.class.getName(), Ledger.class.getName()), "RPCC_SHUTDOWN_GRACE", "2s",
                // b on Netty's native epoll, a on NIO: the chain crosses both
                "RPCC_TRANSPORT", name.equals("b") ? "epoll" : "nio");
    }

    private static int freePort() throws IOException {
        try (ServerSocket s = new ServerSocket(0)) {
            return s.getLocalPort();
        }
    }
}
