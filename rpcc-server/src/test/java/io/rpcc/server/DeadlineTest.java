package io.rpcc.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.rpcc.client.ChainCall;
import io.rpcc.client.RpccClient;
import io.rpcc.core.ChainContext;
import io.rpcc.core.ChainTimeoutException;
import io.rpcc.core.DeadlineExceededException;
import io.rpcc.core.StaticRoute;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Deadlines: the chain's budget travels hop to hop, a hop that arrives past it does not run its
 * service function, service functions see what is left, and the client ends a chain at its deadline
 * and stops it. On the emulated wide-area network: {@code WanDeadlineTest} (rpcc-testkit).
 */
class DeadlineTest {
    static Cluster cluster;
    static RpccClient client;
    /** How many times each hop's service function ran, by {@code id@hop}. */
    static final Map<String, AtomicInteger> runs = new ConcurrentHashMap<>();
    /** What each hop saw of the deadline, by {@code id@hop}. */
    static final Map<String, Duration> remaining = new ConcurrentHashMap<>();
    /** The hops whose sleep a cancel interrupted, as {@code id@hop}. */
    static final java.util.Set<String> interrupted = ConcurrentHashMap.newKeySet();
    static final StaticRoute FIVE_HOPS = StaticRoute.of(StaticRoute.hop("s1", "step"), StaticRoute.hop("s2", "step"),
            StaticRoute.hop("s3", "step"), StaticRoute.hop("s4", "step"), StaticRoute.hop("s5", "step"));

    /**
     * Params {@code id|sleepMillis|atHop}: the hop {@code atHop} (0: every hop) sleeps that long
     * before it returns its params.
     */
    static Object step(Object p) throws InterruptedException {
        String[] f = ((String) p).split("\\|");
        ChainContext ctx = ChainContext.current();
        String key = f[0] + "@" + ctx.hop();
        runs.computeIfAbsent(key, k -> new AtomicInteger()).incrementAndGet();
        remaining.put(key, Duration.between(Instant.now(), ctx.deadline()));
        int at = Integer.parseInt(f[2]);
        if (at == 0 || at == ctx.hop()) {
            try {
                Thread.sleep(Long.parseLong(f[1]));
            } catch (InterruptedException e) {
                interrupted.add(key);
                throw e;
            }
        }
        return p;
    }

    static int runs(String id, int hop) {
        AtomicInteger n = runs.get(id + "@" + hop);
        return n == null ? 0 : n.get();
    }

    @BeforeAll
    static void start() {
        cluster = new Cluster();
        for (int i = 1; i <= 5; i++) {
            cluster.server("s" + i, b -> b.service("step", DeadlineTest::step));
        }
        // a node whose next hop is an hour away: nothing it forwards can start within a minute
        cluster.server("far", b -> b.deadlineNetworkAllowance(Duration.ofHours(1)).service("step", DeadlineTest::step));
        client = cluster.client();
    }

    @AfterAll
    static void stop() throws Exception {
        cluster.close();
    }

    @Test
    void theClientEndsAChainAtItsDeadlineAndStopsIt() throws InterruptedException {
        long start = System.nanoTime();
        DeadlineExceededException e = assertThrows(DeadlineExceededException.class, () -> client.runChain(
                ChainCall.along(FIVE_HOPS, "overrun|2500|3").deadline(Duration.ofSeconds(2))));
        long tookMillis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
        assertEquals(0, e.hop(), e::getMessage);
        assertTrue(e.remoteMessage().contains("did not end by its deadline"), e.remoteMessage());
        assertTrue(tookMillis >= 1900 && tookMillis < 2400, "ended at the deadline, before hop 3's sleep did: "
                + tookMillis + " ms");
        assertEquals(1, runs("overrun", 3), "hop 3 ran (and overran)");
        long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (!interrupted.contains("overrun@3") && System.nanoTime() < end) {
            Thread.sleep(10);
        }
        assertTrue(interrupted.contains("overrun@3"), "the cancel stopped hop 3");
        Thread.sleep(700); // hop 3's sleep would have ended by now
        assertEquals(0, runs("overrun", 4), "hop 4's service function never ran");
        assertEquals(0, runs("overrun", 5));
        assertEquals(0, client.chainsInFlight());
    }

    @Test
    void withATimeoutNoLaterThanTheDeadlineTheChainTimesOut() {
        assertThrows(ChainTimeoutException.class, () -> client.runChain(ChainCall.along(FIVE_HOPS, "timed|2500|2")
                .timeout(Duration.ofMillis(500)).deadline(Duration.ofSeconds(5))));
    }

    @Test
    void serviceFunctionsSeeTheBudgetShrinkHopByHop() {
        client.runChain(ChainCall.along(FIVE_HOPS, "shrink|100|0").deadline(Duration.ofSeconds(10)));
        Duration first = remaining.get("shrink@1");
        assertTrue(first.compareTo(Duration.ofSeconds(10)) <= 0 && first.isPositive(), first::toString);
        for (int hop = 1; hop < 5; hop++) {
            Duration here = remaining.get("shrink@" + hop);
            Duration next = remaining.get("shrink@" + (hop + 1));
            assertTrue(next.compareTo(here.minusMillis(100)) <= 0, "hop " + hop + " slept 100 ms: " + here + " then " + next);
        }
        assertEquals(1, runs("shrink", 5));
    }

    @Test
    void theTimeoutTravelsAsTheDeadlineWhenItIsEarlier() {
        client.runChain(ChainCall.along(FIVE_HOPS, "timeout|0|0").timeout(Duration.ofSeconds(3))
                .deadline(Duration.ofMinutes(5)));
        Duration seen = remaining.get("timeout@1");
        assertTrue(seen.compareTo(Duration.ofSeconds(3)) <= 0 && seen.isPositive(), seen::toString);
        client.runChain(ChainCall.along(FIVE_HOPS, "default|0|0"));
        Duration byDefault = remaining.get("default@1");
        assertTrue(byDefault.compareTo(Duration.ofSeconds(20)) <= 0 && byDefault.compareTo(Duration.ofSeconds(10)) > 0,
                "the client's default timeout (20 s in the tests): " + byDefault);
    }

    @Test
    void aChainStartedPastItsDeadlineRunsNothing() {
        DeadlineExceededException e = assertThrows(DeadlineExceededException.class, () -> client.runChain(
                ChainCall.along(FIVE_HOPS, "late|0|0").deadline(Instant.now().minusSeconds(1))));
        assertEquals(1, e.hop());
        assertEquals("s1", e.host());
        assertEquals(0, runs("late", 1));
    }

    @Test
    void eachNodeTakesItsNetworkAllowanceOffTheBudget() {
        // the hop that arrives past the deadline does not run, and its error says by how much it was late
        DeadlineExceededException e = assertThrows(DeadlineExceededException.class, () -> client.runChain(
                ChainCall.along(StaticRoute.of(StaticRoute.hop("far", "step"), StaticRoute.hop("s2", "step")),
                        "allowance|0|0").deadline(Duration.ofMinutes(1)).timeout(Duration.ofMinutes(2))));
        assertEquals(2, e.hop());
        assertEquals("s2", e.host());
        assertEquals(List.of("far", "s2"), e.path());
        Matcher late = Pattern.compile("^hop 2 \\('step' at 's2'\\) started (\\d+) ms after the chain's deadline")
                .matcher(e.remoteMessage());
        assertTrue(late.find(), e.remoteMessage());
        long lateMillis = Long.parseLong(late.group(1));
        assertTrue(lateMillis >= Duration.ofMinutes(59).toMillis()
                && lateMillis < Duration.ofMinutes(59).plusSeconds(10).toMillis(), "an hour's allowance less the "
                + "minute's deadline, and the little time the chain took: " + e.remoteMessage());
        assertEquals(1, runs("allowance", 1));
        assertEquals(0, runs("allowance", 2));
    }
}
