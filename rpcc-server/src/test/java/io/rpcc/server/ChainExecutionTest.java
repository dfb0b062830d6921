package io.rpcc.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.rpcc.core.ServiceMethod;
import io.rpcc.client.ChainCall;
import io.rpcc.client.RpccClient;
import io.rpcc.core.ChainContext;
import io.rpcc.core.ChainResult;
import io.rpcc.core.ChainState;
import io.rpcc.core.ChainingFunctionSource;
import io.rpcc.core.ConsoleLine;
import io.rpcc.core.HopTiming;
import io.rpcc.core.StaticRoute;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.AfterParameterizedClassInvocation;
import org.junit.jupiter.params.BeforeParameterizedClassInvocation;
import org.junit.jupiter.params.Parameter;
import org.junit.jupiter.params.ParameterizedClass;
import org.junit.jupiter.params.provider.EnumSource;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** Chains of 1 to 5 hops through real servers on loopback, in chain and interactive mode. */
@ParameterizedClass(name = "{0}")
@EnumSource(Cluster.Security.class)
class ChainExecutionTest {
    /** Plaintext or mutual TLS: the run's argument, which {@link #start} sets the cluster up with. */
    @Parameter
    Cluster.Security security;

    static Cluster cluster;
    static RpccClient client;
    static final java.util.Map<String, RpccServer> servers = new java.util.HashMap<>();
    static final ChainingFunctionSource ROUTE = ChainingFunctionSource.javaResource(ChainExecutionTest.class, "/chains/Route.java");

    @BeforeParameterizedClassInvocation
    static void start(Cluster.Security security) {
        cluster = new Cluster(security);
        for (int i = 1; i <= 5; i++) {
            int n = i;
            servers.put("s" + i, cluster.server("s" + i, b -> b
                    .service("append", p -> p + "s" + n + ";")
                    .service("where", p -> ChainContext.current().node())));
        }
        cluster.server("gateway", b -> b.service("region", p -> {
            String order = (String) p;
            ChainContext.current().console().println("routing order " + order);
            return order.startsWith("FR") ? "eu" : "us";
        }));
        cluster.server("inventory-eu", b -> b.service("stock", p -> 7));
        cluster.server("inventory-us", b -> b.service("stock", p -> 42));
        cluster.server("pricing", b -> b.service("quote", p -> "price(" + p + ")"));
        client = cluster.client();
    }

    /** Service functions as annotated methods. */
    static final class Catalog {
        @ServiceMethod("price")
        long priceOf(String sku) {
            return sku.length() * 100L;
        }

        @ServiceMethod
        String version() {
            return "v1";
        }

        @ServiceMethod("fail")
        String fail(String why) {
            throw new UnsupportedOperationException(why);
        }

        /** Reads the hop's data stream: its last parameter is an InputStream. */
        @ServiceMethod("count")
        String count(String name, java.io.InputStream data) throws java.io.IOException {
            return name + ": " + data.transferTo(java.io.OutputStream.nullOutputStream());
        }
    }

    /** A streaming service method declared idempotent. */
    static final class IdempotentUpload {
        @ServiceMethod(value = "upload", idempotent = true)
        long upload(java.io.InputStream data) throws java.io.IOException {
            return data.transferTo(java.io.OutputStream.nullOutputStream());
        }
    }

    @Test
    void annotatedMethodsAreServiceFunctions() {
        RpccServer catalog = cluster.server("catalog", b -> b.services(new Catalog()));
        assertEquals(500L, client.call("catalog", "price", "ABCDE").join().value());
        assertEquals("v1", client.call("catalog", "version", null).join().value());
        io.rpcc.core.ServiceFunctionException e = org.junit.jupiter.api.Assertions.assertThrows(
                io.rpcc.core.ServiceFunctionException.class,
                () -> client.runChain(ChainCall.to("catalog", "fail").params("not today")));
        assertEquals("java.lang.UnsupportedOperationException", e.exceptionName());
        assertTrue(e.remoteMessage().contains("not today"), e.remoteMessage());
        assertEquals("catalog", catalog.name());
    }

    @Test
    void anAnnotatedMethodWhoseLastParameterIsAnInputStreamReadsTheHopsDataStream() {
        cluster.server("uploads", b -> b.services(new Catalog()));
        byte[] data = new byte[1 << 20];
        assertEquals("prices.csv: " + data.length, client.runChain(ChainCall.to("uploads", "count").params("prices.csv")
                .stream(new java.io.ByteArrayInputStream(data))).value());
        IllegalArgumentException e = org.junit.jupiter.api.Assertions.assertThrows(IllegalArgumentException.class,
                () -> RpccServer.builder("x").services(new IdempotentUpload()));
        assertTrue(e.getMessage().contains("reads a data stream"), e.getMessage());
    }

    @AfterParameterizedClassInvocation
    static void stop() throws Exception {
        cluster.close();
    }

    @ParameterizedTest
    @ValueSource(ints = {1, 2, 3, 4, 5})
    void staticRouteOfNHops(int hops) {
        List<StaticRoute.Hop> steps = new ArrayList<>();
        StringBuilder expected = new StringBuilder("start;");
        List<String> path = new ArrayList<>();
        for (int i = 1; i <= hops; i++) {
            steps.add(StaticRoute.hop("s" + i, "append"));
            expected.append("s").append(i).append(';');
            path.add("s" + i);
        }
        StaticRoute route = StaticRoute.of(steps);
        for (boolean interactive : new boolean[] {false, true}) {
            ChainResult r = client.runChain(ChainCall.along(route, "start;").interactive(interactive));
            assertEquals(expected.toString(), r.value());
            assertEquals(path, r.path());
            assertEquals(hops, r.timings().size());
            assertEquals(interactive, r.interactive());
            for (int i = 0; i < hops; i++) {
                HopTiming t = r.timings().get(i);
                assertEquals(i + 1, t.hop());
                assertEquals("s" + (i + 1), t.host());
                assertEquals("append", t.serviceFunction());
                assertEquals(hops == 1 ? "s1" : (interactive ? client.name() : t.host()), t.chainingHost());
            }
        }
    }

    @Test
    void routeChosenAtRunTimeFromAServiceFunctionResult() {
        ChainResult eu = client.runChain("gateway", "region", "FR-1", ROUTE, ChainState.of("step", "region", "sku", "A1"));
        assertEquals("quote=price(A1:7)", eu.value());
        assertEquals(List.of("gateway", "inventory-eu", "pricing"), eu.path());

        ChainResult us = client.runChain("gateway", "region", "US-9", ROUTE, ChainState.of("step", "region", "sku", "B2"));
        assertEquals("quote=price(B2:42)", us.value());
        assertEquals(List.of("gateway", "inventory-us", "pricing"), us.path());
    }

    @Test
    void interactiveModeGivesIdenticalResults() {
        for (String order : List.of("FR-1", "US-2", "FR-3")) {
            ChainCall call = ChainCall.to("gateway", "region").params(order).chainingFunction(ROUTE)
                    .state(ChainState.of("step", "region", "sku", "X"));
            ChainResult remote = client.runChain(call.interactive(false));
            ChainResult local = client.runChain(call.interactive(true));
            assertEquals(remote.value(), local.value());
            assertEquals(remote.path(), local.path());
            assertEquals(texts(remote.console()), texts(local.console()));
            assertTrue(remote.timings().stream().allMatch(t -> t.chainingHost().equals(t.host())));
            assertTrue(local.timings().stream().allMatch(t -> t.chainingHost().equals(client.name())));
        }
    }

    @Test
    void consoleLinesFromServiceAndChainingFunctionsReachTheClientInOrder() {
        ChainResult r = client.runChain("gateway", "region", "FR-7", ROUTE, ChainState.of("step", "region", "sku", "Z"));
        assertEquals(List.of(
                "[hop 1 gateway service:region] routing order FR-7",
                "[hop 1 gateway chaining] step region got eu",
                "[hop 2 inventory-eu chaining] step stock got 7",
                "[hop 3 pricing chaining] step quote got price(Z:7)"),
                r.console().stream().map(ConsoleLine::toString).toList());
        assertEquals(3, r.timings().size());
        assertTrue(r.profile().toString().contains("inventory-eu"));
        assertTrue(r.elapsed().toNanos() >= r.profile().serviceNanos() + r.profile().chainingNanos());
    }

    @Test
    void plainCallIsAOneHopChain() {
        ChainResult r = client.call("s3", "where", null).join();
        assertEquals("s3", r.value());
        assertEquals(List.of("s3"), r.path());
    }

    @Test
    void manyConcurrentChainsShareOneConnectionPerPair() {
        StaticRoute route = StaticRoute.of(StaticRoute.hop("s1", "append"), StaticRoute.hop("s2", "append"));
        assertEquals("warm:s1;s2;", client.runChain(ChainCall.along(route, "warm:")).value());
        int s1Connections = servers.get("s1").stats().connectionsOpen();
        int s2Connections = servers.get("s2").stats().connectionsOpen();
        List<java.util.concurrent.CompletableFuture<ChainResult>> all = new ArrayList<>();
        for (int i = 0; i < 500; i++) {
            all.add(client.startChain(route, i + ":"));
        }
        for (int i = 0; i < 500; i++) {
            assertEquals(i + ":s1;s2;", all.get(i).join().value());
        }
        assertEquals(s1Connections, servers.get("s1").stats().connectionsOpen(), "no new connections at s1");
        assertEquals(s2Connections, servers.get("s2").stats().connectionsOpen(), "no new connections at s2");
    }

    private static List<String> texts(List<ConsoleLine> lines) {
        return lines.stream().map(l -> l.hop() + " " + l.text()).toList();
    }
}
