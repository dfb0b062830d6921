package io.rpcc.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.rpcc.client.ChainCall;
import io.rpcc.client.Heartbeats;
import io.rpcc.client.RpccClient;
import io.rpcc.core.BrokenChainException;
import io.rpcc.core.ChainState;
import io.rpcc.core.ChainTimeoutException;
import io.rpcc.core.ChainingFunctionSource;
import io.rpcc.core.StaticRoute;
import io.rpcc.core.SubChain;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Chain heartbeats and the diagnosis of broken chains (paper 3.9, 3.10) on real nodes on loopback:
 * a hop that runs for several broken-after times is not broken; a node that dies or freezes mid-chain
 * (its links go silent: {@link Blackout}) is detected within the broken-after time plus slack, and
 * the interactive diagnosis names the hop, its service function and its host; a break that heals
 * before the diagnosis reaches it ends in the chain's result; a split branch whose node dies is
 * detected while its sibling heartbeats; a nested sub-chain's and a merge host's heartbeats keep a
 * chain alive; heartbeats of an ended chain are dropped and counted.
 */
@Timeout(value = 2, unit = TimeUnit.MINUTES)
class ChainHeartbeatTest {
    static final Duration INTERVAL = Duration.ofMillis(500);
    static final Duration BROKEN_AFTER = Duration.ofSeconds(2);
    /** Generous for a loaded machine: detection takes the broken-after time, at most an interval and a sweep more. */
    static final long DETECTION_SLACK_MS = 6_000;
    static final ChainingFunctionSource FAN = ChainingFunctionSource.javaResource(ChainHeartbeatTest.class,
            "/chains/Fan.java");

    Cluster cluster;
    RpccClient client;
    final Map<String, Blackout> blackouts = new ConcurrentHashMap<>();
    final Map<String, RpccServer> servers = new ConcurrentHashMap<>();
    final Map<String, AtomicInteger> calls = new ConcurrentHashMap<>();
    final CountDownLatch blocked = new CountDownLatch(1);
    final CountDownLatch release = new CountDownLatch(1);
    final CountDownLatch diagnosing = new CountDownLatch(1);

    @BeforeEach
    void start() {
        cluster = new Cluster();
        for (String name : List.of("s1", "s2", "s3", "s4")) {
            Blackout blackout = new Blackout();
            blackouts.put(name, blackout);
            servers.put(name, cluster.server(name, b -> b.pipelineCustomizer(blackout.customizer())
                    .service("echo", p -> {
                        count(name, "echo");
                        return p + ">" + name;
                    })
                    .service("sleep", p -> {
                        count(name, "sleep");
                        Thread.sleep(6_000); // three broken-after times
                        return p + ">slept@" + name;
                    })
                    .service("block", p -> { // the first call blocks until released; later ones return at once
                        if (count(name, "block") == 1) {
                            blocked.countDown();
                            release.await(60, TimeUnit.SECONDS);
                        }
                        return p + ">" + name;
                    })
                    // the diagnosis's call waits until the test lets it go on; idempotent, so that the
                    // servers' outcome caches do not replay it (a replay would not wait)
                    .idempotentService("waitForDiagnosis", p -> {
                        if (count(name, "waitForDiagnosis") > 1) {
                            diagnosing.await(30, TimeUnit.SECONDS);
                        }
                        return p + ">" + name;
                    })
                    .service("nest", p -> SubChain.to("s2", "sleep").params(p))));
        }
        client = cluster.client(b -> b.heartbeats(Heartbeats.every(INTERVAL, BROKEN_AFTER)));
    }

    private int count(String node, String function) {
        return calls.computeIfAbsent(node + "." + function, k -> new AtomicInteger()).incrementAndGet();
    }

    private int calls(String node, String function) {
        AtomicInteger n = calls.get(node + "." + function);
        return n == null ? 0 : n.get();
    }

    @AfterEach
    void stop() throws Exception {
        blackouts.values().forEach(Blackout::heal);
        release.countDown();
        diagnosing.countDown();
        cluster.close();
    }

    private static ChainCall route(String... hops) {
        StaticRoute.Hop[] h = new StaticRoute.Hop[hops.length];
        for (int i = 0; i < hops.length; i++) {
            String[] at = hops[i].split("\\.");
            h[i] = StaticRoute.hop(at[0], at[1]);
        }
        return ChainCall.along(StaticRoute.of(h), "q");
    }

    private static Throwable failure(CompletableFuture<?> f) {
        ExecutionException e = assertThrows(ExecutionException.class, () -> f.get(60, TimeUnit.SECONDS));
        return e.getCause();
    }

    private static long await(BooleanSupplier condition, long timeoutMs) throws InterruptedException {
        long start = System.nanoTime();
        while (!condition.getAsBoolean()) {
            assertTrue(System.nanoTime() - start < TimeUnit.MILLISECONDS.toNanos(timeoutMs), "condition not met in time");
            Thread.sleep(20);
        }
        return TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
    }

    @Test
    void aHopRunningForSeveralBrokenAfterTimesHeartbeatsAndCompletes() throws Exception {
        String result = (String) client.startChain(route("s1.echo", "s2.sleep", "s3.echo")).get(60, TimeUnit.SECONDS)
                .value();
        assertEquals("q>s1>slept@s2>s3", result);
        assertEquals(0, client.brokenChains());
        assertEquals(1, calls("s2", "sleep"), "not run again by a diagnosis");
    }

    @Test
    void withoutHeartbeatsTheSameSilentHopIsNeverDeclaredBroken() throws Exception {
        var f = client.startChain(route("s1.echo", "s2.block", "s3.echo").heartbeats(Heartbeats.off())
                .timeout(Duration.ofSeconds(5)));
        assertTrue(blocked.await(30, TimeUnit.SECONDS));
        blackouts.get("s2").cut();
        Throwable timedOut = failure(f);
        assertInstanceOf(ChainTimeoutException.class, timedOut, "it waits for its timeout");
        assertTrue(!timedOut.getMessage().contains("heard"), "without heartbeats, nothing is known of where it is: "
                + timedOut.getMessage());
        assertEquals(0, client.brokenChains());
    }

    @Test
    void aNodeThatCrashesMidChainIsDetectedAndTheDiagnosisNamesTheHopItCannotReach() throws Exception {
        var f = client.startChain(route("s1.echo", "s2.block", "s3.echo"));
        assertTrue(blocked.await(30, TimeUnit.SECONDS));
        long cutAt = System.nanoTime();
        blackouts.get("s2").cut(); // the machine is gone: no goodbye, not even the report of its abandoned hop
        servers.get("s2").close(); // and nothing listens there any more
        await(() -> client.brokenChains() == 1, BROKEN_AFTER.toMillis() + DETECTION_SLACK_MS);
        long detectedMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - cutAt);
        assertTrue(detectedMs >= BROKEN_AFTER.toMillis() - INTERVAL.toMillis() - 300,
                "not before its heartbeats could have stopped: " + detectedMs + " ms");
        BrokenChainException e = assertInstanceOf(BrokenChainException.class, failure(f));
        assertEquals(2, e.hop());
        assertEquals("s2", e.host());
        assertEquals("block", e.serviceFunction());
        assertTrue(e.getMessage().contains("cannot be reached") && e.getMessage().contains("Check that 's2' runs"),
                e.getMessage());
        assertTrue(e.isRetryable());
        assertEquals(List.of("s1", "s2"), e.path());
        assertTrue(TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - cutAt) < BROKEN_AFTER.toMillis() + DETECTION_SLACK_MS
                + 10_000, "diagnosed promptly");
        assertEquals(0, calls("s3", "echo"), "the chain never got past s2");
    }

    @Test
    void aFrozenNodeIsDetectedAndTheDiagnosisNamesTheHopThatDoesNotAnswer() throws Exception {
        var f = client.startChain(route("s1.echo", "s2.block", "s3.echo"));
        assertTrue(blocked.await(30, TimeUnit.SECONDS));
        blackouts.get("s2").cut(); // frozen: connections stay open, nothing comes back
        BrokenChainException e = assertInstanceOf(BrokenChainException.class, failure(f));
        assertEquals(2, e.hop());
        assertEquals("s2", e.host());
        assertEquals("block", e.serviceFunction());
        assertTrue(e.getMessage().contains("did not answer and sent no heartbeat for " + BROKEN_AFTER.toMillis() + " ms"),
                e.getMessage());
        assertEquals(2, client.brokenChains(), "the chain, then the diagnosis's silent step at s2");
    }

    @Test
    void aBreakThatHealsBeforeTheDiagnosisReachesItEndsWithTheChainsResult() throws Exception {
        var f = client.startChain(route("s1.waitForDiagnosis", "s2.block", "s3.echo"));
        assertTrue(blocked.await(30, TimeUnit.SECONDS));
        blackouts.get("s2").cut();
        await(() -> client.brokenChains() == 1, BROKEN_AFTER.toMillis() + DETECTION_SLACK_MS);
        await(() -> calls("s1", "waitForDiagnosis") == 2, 20_000); // the diagnosis runs hop 1 again: s1 is fine
        blackouts.get("s2").heal();
        release.countDown(); // the hop that broke finishes its first run
        diagnosing.countDown();
        assertEquals("q>s1>s2>s3", f.get(60, TimeUnit.SECONDS).value());
        assertEquals(1, calls("s2", "block"), "the diagnosis waited for the first run at s2 and replayed it");
        assertEquals(1, calls("s3", "echo"), "the broken run's hop 3 and the diagnosis's: one run, one replay");
    }

    @Test
    void aSplitBranchWhoseNodeDiesIsDetectedWhileItsSiblingStillHeartbeats() throws Exception {
        var f = client.startChain(ChainCall.to("s1", "echo").params("q").chainingFunction(FAN)
                .state(fan("s2:block,s3:waitForDiagnosis", "")));
        assertTrue(blocked.await(30, TimeUnit.SECONDS));
        blackouts.get("s2").cut();
        servers.get("s2").close();
        await(() -> client.brokenChains() == 1, BROKEN_AFTER.toMillis() + INTERVAL.toMillis() + DETECTION_SLACK_MS);
        assertEquals(1, calls("s3", "waitForDiagnosis"), "the other branch was still running (and heartbeating)");
        diagnosing.countDown();
        BrokenChainException e = assertInstanceOf(BrokenChainException.class, failure(f));
        assertEquals(2, e.hop());
        assertEquals("s2", e.host());
        assertTrue(e.getMessage().startsWith("[branch 1 of 2]"), e.getMessage());
    }

    @Test
    void aNestedSubChainsHeartbeatsReachTheTopLevelOriginator() throws Exception {
        String result = (String) client.startChain(ChainCall.to("s1", "nest").params("q")).get(60, TimeUnit.SECONDS)
                .value();
        assertEquals("q>slept@s2", result);
        assertEquals(0, client.brokenChains());
        assertEquals(1, calls("s2", "sleep"));
    }

    @Test
    void aMergeHostHeartbeatsForTheBranchesThatArrivedWhileASlowBranchRuns() throws Exception {
        Object result = client.startChain(ChainCall.to("s1", "echo").params("q").chainingFunction(FAN)
                .state(fan("s2:echo,s3:sleep", "s4"))).get(60, TimeUnit.SECONDS).value();
        assertEquals(List.of("q>s1>s2", "q>s1>slept@s3"), result);
        assertEquals(0, client.brokenChains());
    }

    @Test
    void heartbeatsOfAChainThatEndedAreDroppedAndCounted() throws Exception {
        Heartbeats fast = Heartbeats.every(Duration.ofMillis(200), Duration.ofSeconds(10));
        var f = client.startChain(route("s1.block").heartbeats(fast).timeout(Duration.ofSeconds(1)));
        assertTrue(blocked.await(30, TimeUnit.SECONDS));
        // once s1's connection for heartbeats to the client is open (the client's HELLO came back on it),
        // s1 hears nothing more: the client's cancel never arrives, so the hop goes on and heartbeats
        await(() -> servers.get("s1").stats().framesReceived() >= 3, 10_000);
        blackouts.get("s1").cutInbound();
        ChainTimeoutException timedOut = assertInstanceOf(ChainTimeoutException.class, failure(f));
        // alive but slow, not lost: the timeout says where the chain was last heard of
        assertTrue(timedOut.getMessage().contains("the last hop heard from: hop 1 on 's1'"), timedOut.getMessage());
        await(() -> client.lateHeartbeats() >= 2, 10_000);
        assertEquals(0, client.brokenChains());
    }

    static ChainState fan(String to, String mergeAt) {
        return ChainState.of("step", "split", "to", to, "mergeAt", mergeAt, "merge", "", "then", "").with("inner", "");
    }
}
