package io.rpcc.observability;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.micrometer.core.instrument.DistributionSummary;
import io.micrometer.core.instrument.FunctionTimer;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import io.micrometer.core.instrument.distribution.CountAtBucket;
import io.micrometer.core.instrument.observation.DefaultMeterObservationHandler;
import io.micrometer.observation.ObservationRegistry;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import io.rpcc.client.ChainCall;
import io.rpcc.client.ReplySet;
import io.rpcc.client.RpccClient;
import io.rpcc.core.ChainContext;
import io.rpcc.core.ChainErrorCode;
import io.rpcc.core.ChainResult;
import io.rpcc.core.ChainingFunctionSource;
import io.rpcc.core.Refusal;
import io.rpcc.core.ServiceFunctionException;
import io.rpcc.core.StaticNameResolver;
import io.rpcc.core.UnknownServiceFunctionException;
import io.rpcc.server.RpccServer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * {@link RpccMetrics} on real nodes: after a known workload (chains that complete, fail with known
 * codes and send partial replies), the meters in a {@link PrometheusMeterRegistry} equal the expected
 * counts exactly.
 */
@Timeout(value = 2, unit = TimeUnit.MINUTES)
class MetricsWorkloadTest {
    static final ChainingFunctionSource THEN_B = ChainingFunctionSource.java("""
            import io.rpcc.core.*;

            public class ThenB implements ChainingFunction {
                public NextHop apply(ChainState state, Object result) {
                    return NextHop.callThenEnd("b", "end", result);
                }
            }
            """);

    final MeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
    final RpccMetrics metrics = RpccMetrics.of(registry);
    final StaticNameResolver names = new StaticNameResolver();
    final List<AutoCloseable> nodes = new ArrayList<>();

    @AfterEach
    void close() throws Exception {
        for (AutoCloseable n : nodes.reversed()) {
            n.close();
        }
    }

    RpccServer server(RpccServer.Builder builder) {
        RpccServer s = metrics.applyTo(builder.resolver(names)).build().start();
        metrics.bind(s);
        names.register(s.name(), s.address());
        nodes.add(s);
        return s;
    }

    @Test
    void metersCountAKnownWorkloadExactly() throws Exception {
        server(RpccServer.builder("a")
                .service("ok", p -> {
                    ChainContext.current().preturn("a1");
                    ChainContext.current().preturn("a2");
                    return p;
                })
                .service("boom", p -> {
                    ChainContext.current().preturn("before the boom");
                    throw new IllegalStateException("boom");
                }));
        server(RpccServer.builder("b").service("end", p -> {
            ChainContext.current().preturn("b1");
            return p + "!";
        }));
        RpccClient client = metrics.applyTo(RpccClient.builder().name("c").resolver(names)
                .timeout(Duration.ofSeconds(30))).build().start();
        nodes.add(client);
        metrics.bind(client);

        int chains = 4;        // a.ok -> b.end, 3 replies each
        int replies = 0;
        for (int i = 0; i < chains; i++) {
            ReplySet<String> set = client.startChainWithReplies(
                    ChainCall.to("a", "ok").params("x" + i).chainingFunction(THEN_B), String.class);
            for (String ignored : set) {
                replies++;
            }
            ChainResult r = set.result().join();
            assertEquals("x" + i + "!", r.value());
        }
        assertEquals(3 * chains, replies);
        int boom = 2;          // a.boom, 1 reply each, then fails
        for (int i = 0; i < boom; i++) {
            CompletionException e = assertThrows(CompletionException.class,
                    () -> client.startChain(ChainCall.to("a", "boom").params("y")).join());
            assertInstanceOf(ServiceFunctionException.class, e.getCause());
        }
        CompletionException unknown = assertThrows(CompletionException.class,
                () -> client.startChain(ChainCall.to("a", "nope").params("z")).join());
        assertInstanceOf(UnknownServiceFunctionException.class, unknown.getCause());

        // client: chains by outcome and code
        assertEquals(chains + boom + 1, count("rpcc.chains.started"));
        assertEquals(chains, count("rpcc.chains.completed"));
        assertEquals(boom, count("rpcc.chains.failed", "code", ChainErrorCode.SERVICE_FUNCTION_FAILED.name()));
        assertEquals(1, count("rpcc.chains.failed", "code", ChainErrorCode.UNKNOWN_SERVICE_FUNCTION.name()));
        assertEquals(boom + 1, sumCounters("rpcc.chains.failed"));
        assertEquals(chains, timer("rpcc.chain.duration", "outcome", "completed").count());
        assertEquals(boom + 1, timer("rpcc.chain.duration", "outcome", "failed").count());

        // servers: hops by function, kind and outcome (told when the hop ended: wait for the last)
        awaitCount("rpcc.hop.duration", chains, "node", "b", "function", "end", "kind", "service", "outcome", "finished");
        awaitCount("rpcc.hop.duration", chains, "node", "a", "function", "ok", "kind", "service", "outcome", "forwarded");
        awaitCount("rpcc.hop.duration", boom, "node", "a", "function", "boom", "kind", "service", "outcome", "failed");
        assertEquals(chains, timer("rpcc.hop.queue", "node", "a", "function", "ok").count());
        assertEquals(chains, timer("rpcc.hop.service", "node", "b", "function", "end").count());
        // latency histograms: buckets a dashboard can compute quantiles from, every hop in the widest
        for (String hopTimer : List.of("rpcc.hop.queue", "rpcc.hop.service")) {
            CountAtBucket[] buckets = timer(hopTimer, "node", "a", "function", "ok").takeSnapshot().histogramCounts();
            assertTrue(buckets.length > 10, hopTimer + " has " + buckets.length + " buckets");
            assertEquals(chains, buckets[buckets.length - 1].count(), hopTimer + "'s widest bucket");
        }

        // servers' own counters: the chaining function compiled once at a, then found in its cache
        assertEquals(1, functionCount("rpcc.function.cache.misses", "node", "a"));
        assertEquals(chains - 1, functionCount("rpcc.function.cache.hits", "node", "a"));
        FunctionTimer compile = registry.get("rpcc.function.compile").tag("node", "a").functionTimer();
        assertEquals(1, compile.count());
        assertTrue(compile.totalTime(TimeUnit.NANOSECONDS) > 0, "compile time recorded");
        assertEquals(0, functionCount("rpcc.function.cache.misses", "node", "b"));
        for (String node : List.of("a", "b", "c")) {
            for (Refusal r : Refusal.values()) {
                assertEquals(0, functionCount("rpcc.refusals", "node", node, "cause", r.name()), node + " " + r);
            }
            assertEquals(0, functionCount("rpcc.failovers", "node", node));
        }
        assertEquals(0, functionCount("rpcc.retries", "node", "c"));
        assertEquals(0, functionCount("rpcc.chains.broken", "node", "c"));
        // partial replies, as received by the client, each once
        assertEquals(3 * chains + boom, functionCount("rpcc.replies.received", "node", "c"));
        assertEquals(client.stats().replyBytesReceived(), functionCount("rpcc.replies.bytes", "node", "c"));
        assertTrue(functionCount("rpcc.replies.bytes", "node", "c") > 3 * chains, "a reply frame has bytes");
        // the same replies per chain, recorded when each chain ended, by outcome (the unknown function: none)
        DistributionSummary completedReplies = summary("rpcc.chain.replies", "outcome", "completed");
        assertEquals(chains, completedReplies.count());
        assertEquals(3 * chains, completedReplies.totalAmount());
        assertEquals(3, completedReplies.max());
        DistributionSummary failedReplies = summary("rpcc.chain.replies", "outcome", "failed");
        assertEquals(boom + 1, failedReplies.count());
        assertEquals(boom, failedReplies.totalAmount());
        assertEquals(1, failedReplies.max());
        DistributionSummary completedBytes = summary("rpcc.chain.reply.bytes", "outcome", "completed");
        DistributionSummary failedBytes = summary("rpcc.chain.reply.bytes", "outcome", "failed");
        assertEquals(chains, completedBytes.count());
        assertEquals(boom + 1, failedBytes.count());
        assertEquals("bytes", completedBytes.getId().getBaseUnit());
        assertEquals(client.stats().replyBytesReceived(), completedBytes.totalAmount() + failedBytes.totalAmount(),
                "the bytes of the replies' frames, as the client's own count");
        assertTrue(failedBytes.totalAmount() > 0 && completedBytes.totalAmount() > failedBytes.totalAmount());
        assertEquals(0, registry.get("rpcc.chains.active").tag("node", "c").gauge().value());
        assertTrue(registry.get("rpcc.connections.open").tag("node", "a").gauge().value() >= 1);
    }

    @Test
    void sandboxViolationsByRuleFlowControlWaitsAndDisconnectsByCause() throws Exception {
        RpccServer a = server(RpccServer.builder("a")
                .replyWriteTimeout(Duration.ofSeconds(30))
                .service("flood", p -> {
                    for (int i = 0; i < (Integer) p; i++) {
                        ChainContext.current().preturn("r" + i);
                    }
                    return p;
                }));
        RpccClient client = metrics.applyTo(RpccClient.builder().name("c").resolver(names)
                .replyBufferSize(2).timeout(Duration.ofSeconds(30))).build().start();
        metrics.bind(client);

        // a chaining function that starts a thread: refused by the verifier under rule "threads"
        ChainingFunctionSource threads = ChainingFunctionSource.java("""
                import io.rpcc.core.*;

                public class Spawns implements ChainingFunction {
                    public NextHop apply(ChainState state, Object result) {
                        new Thread(() -> { }).start();
                        return NextHop.end(result);
                    }
                }
                """);
        CompletionException e = assertThrows(CompletionException.class,
                () -> client.startChain(ChainCall.to("a", "flood").params(0).chainingFunction(threads)).join());
        assertInstanceOf(io.rpcc.core.SandboxViolationException.class, e.getCause());
        assertEquals(1, functionCount("rpcc.sandbox.violations", "node", "a", "rule", "threads"));
        assertEquals(0, functionCount("rpcc.sandbox.violations", "node", "a", "rule", "other"));
        assertEquals(1, functionCount("rpcc.refusals", "node", "a", "cause", Refusal.SANDBOX_VIOLATION.name()));
        assertEquals(1, count("rpcc.chains.failed", "code", ChainErrorCode.SANDBOX_VIOLATION.name()));

        // a reader slower than the producer: the producer's replies wait for room in the window of 2
        int sent = 40;
        ReplySet<String> set = client.startChainWithReplies(ChainCall.to("a", "flood").params(sent), String.class);
        int read = 0;
        for (String ignored : set) {
            Thread.sleep(2);
            read++;
        }
        assertEquals(sent, read);
        FunctionTimer waits = registry.get("rpcc.replies.flow.waits").tag("node", "a").functionTimer();
        assertTrue(waits.count() > 0, "the producer waited");
        assertEquals(a.stats().replyWaits(), (long) waits.count());
        assertEquals(sent, functionCount("rpcc.replies.received", "node", "c"));

        // disconnects: the client closes; its connections close as NODE_CLOSED there, PEER_CLOSED at a
        int open = (int) registry.get("rpcc.connections.open").tag("node", "c").gauge().value();
        assertTrue(open >= 1, "the client holds a connection");
        client.close();
        assertEquals(open, functionCount("rpcc.disconnects", "node", "c", "cause", "NODE_CLOSED"));
        long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
        while (functionCount("rpcc.disconnects", "node", "a", "cause", "PEER_CLOSED") < open && System.nanoTime() < end) {
            Thread.sleep(5);
        }
        assertEquals(open, functionCount("rpcc.disconnects", "node", "a", "cause", "PEER_CLOSED"));
        for (String cause : List.of("ERROR", "REFUSED", "HANDSHAKE_FAILED", "RECLAIMED")) {
            assertEquals(0, functionCount("rpcc.disconnects", "node", "a", "cause", cause), cause);
        }
    }

    private double count(String name, String... tags) {
        return registry.get(name).tags(tags).counter().count();
    }

    private double sumCounters(String name) {
        return registry.get(name).counters().stream().mapToDouble(c -> c.count()).sum();
    }

    private double functionCount(String name, String... tags) {
        return registry.get(name).tags(tags).functionCounter().count();
    }

    private DistributionSummary summary(String name, String... tags) {
        return registry.get(name).tags(tags).summary();
    }

    private Timer timer(String name, String... tags) {
        return registry.get(name).tags(tags).timer();
    }

    /**
     * A peer sends hops naming thousands of service functions the server does not host: every meter
     * (rpcc's and those an {@link ObservationRegistry}'s meter handler makes of the hop observations)
     * stays tagged with names the server has, so the registry does not grow with the peer's names, and
     * the server keeps serving.
     */
    @Test
    void hopsNamingFunctionsTheServerDoesNotHostAddNoMeterPerName() throws Exception {
        ObservationRegistry observations = ObservationRegistry.create();
        observations.observationConfig().observationHandler(new DefaultMeterObservationHandler(registry));
        RpccTracing tracing = RpccTracing.of(observations);
        server(tracing.applyTo(RpccServer.builder("a").service("ok", p -> p)));
        RpccClient client = metrics.applyTo(RpccClient.builder().name("c").resolver(names)
                .timeout(Duration.ofSeconds(30))).build().start();
        nodes.add(client);
        assertEquals("warm", client.startChain(ChainCall.to("a", "ok").params("warm")).join().value());
        int before = registry.getMeters().size();

        int madeUp = 2_000;
        for (int batch = 0; batch < madeUp; batch += 100) {
            List<CompletableFuture<ChainResult>> calls = new ArrayList<>();
            for (int i = batch; i < batch + 100; i++) {
                calls.add(client.startChain(ChainCall.to("a", "made-up-" + i).params("z")));
            }
            for (CompletableFuture<ChainResult> call : calls) {
                CompletionException e = assertThrows(CompletionException.class, call::join);
                assertInstanceOf(UnknownServiceFunctionException.class, e.getCause());
            }
        }
        awaitCount("rpcc.hop.duration", madeUp, "node", "a", "function", "unknown", "kind", "service",
                "outcome", "failed");
        List<String> named = registry.getMeters().stream()
                .filter(m -> m.getId().getTags().stream().anyMatch(t -> t.getValue().startsWith("made-up-")))
                .map(m -> m.getId().toString()).toList();
        assertEquals(List.of(), named, "meters tagged with a name the peer made up");
        int added = registry.getMeters().size() - before;
        assertTrue(added < 20, "meters added by " + madeUp + " made-up names: " + added);
        assertEquals("still", client.startChain(ChainCall.to("a", "ok").params("still")).join().value());
    }

    /** Waits for a hop meter (hops are told their end after the chain's result may have reached the client). */
    private void awaitCount(String name, long expected, String... tags) throws InterruptedException {
        long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
        while (System.nanoTime() < end) {
            Timer t = registry.find(name).tags(tags).timer();
            if (t != null && t.count() >= expected) {
                break;
            }
            Thread.sleep(5);
        }
        assertEquals(expected, timer(name, tags).count(), name + " " + String.join(",", tags));
    }
}
