package io.rpcc.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.rpcc.client.ChainCall;
import io.rpcc.client.Heartbeats;
import io.rpcc.client.ReplySet;
import io.rpcc.client.RpccClient;
import io.rpcc.core.BrokenChainException;
import io.rpcc.core.ChainContext;
import io.rpcc.core.ChainException;
import io.rpcc.core.StaticRoute;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A hop that has handed its chain on but still sends partial replies (work it started through its
 * context) owes the chain its credit: its node heartbeats for it, and the originator watches it
 * like any other part of the chain. On real nodes on loopback: a chain whose result has arrived ends
 * with a {@link BrokenChainException} naming that hop and host soon after its node dies (before,
 * it waited out its whole timeout and failed naming the client); a hop that keeps replying for
 * several broken-after times after the result is not declared broken; and a hop that replies does
 * not mask the death of the hop that holds the chain.
 */
@Timeout(value = 2, unit = TimeUnit.MINUTES)
class OwedRepliesLivenessTest {
    static final Duration INTERVAL = Duration.ofMillis(300);
    static final Duration BROKEN_AFTER = Duration.ofMillis(1200);
    /** Far below the chains' 30 s timeout, generous for a loaded machine. */
    static final long DETECTION_BOUND_MS = BROKEN_AFTER.toMillis() + 8_000;

    Cluster cluster;
    RpccClient client;
    final Map<String, Blackout> blackouts = new ConcurrentHashMap<>();
    final Map<String, RpccServer> servers = new ConcurrentHashMap<>();
    final CountDownLatch blocked = new CountDownLatch(1);
    final CountDownLatch release = new CountDownLatch(1);
    final CountDownLatch echoed = new CountDownLatch(1);

    @BeforeEach
    void start() {
        cluster = new Cluster();
        for (String name : List.of("s1", "s2", "s3")) {
            Blackout blackout = new Blackout();
            blackouts.put(name, blackout);
            servers.put(name, cluster.server(name, b -> b.pipelineCustomizer(blackout.customizer())
                    .service("echo", p -> {
                        echoed.countDown();
                        return p + ">" + name;
                    })
                    // replies from a thread of its own, every 50 ms for the number of ms the params say
                    .service("linger", p -> {
                        long forMs = Long.parseLong((String) p);
                        ChainContext.current().startThread(() -> {
                            long end = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(forMs);
                            for (int i = 0; System.nanoTime() < end; i++) {
                                ChainContext.current().preturn("r" + i + "@" + name);
                                try {
                                    Thread.sleep(50);
                                } catch (InterruptedException e) {
                                    return;
                                }
                            }
                        });
                        return p;
                    })
                    .service("block", p -> {
                        blocked.countDown();
                        release.await(60, TimeUnit.SECONDS);
                        return p + ">" + name;
                    })));
        }
        client = cluster.client(b -> b.heartbeats(Heartbeats.every(INTERVAL, BROKEN_AFTER))
                .timeout(Duration.ofSeconds(30)));
    }

    @AfterEach
    void stop() throws Exception {
        blackouts.values().forEach(Blackout::heal);
        release.countDown();
        cluster.close();
    }

    private static ChainCall route(String params, String... hops) {
        StaticRoute.Hop[] h = new StaticRoute.Hop[hops.length];
        for (int i = 0; i < hops.length; i++) {
            String[] at = hops[i].split("\\.");
            h[i] = StaticRoute.hop(at[0], at[1]);
        }
        return ChainCall.along(StaticRoute.of(h), params);
    }

    /** Kills {@code server} the way a crashed machine goes: silent first, then nothing listens. */
    private void crash(String server) {
        blackouts.get(server).cut();
        servers.get(server).close();
    }

    @Test
    void aChainWhoseResultArrivedEndsBrokenNamingTheDeadHopThatOwedReplies() throws Exception {
        ReplySet<String> replies = client.startChainWithReplies(route("20000", "s1.linger", "s2.echo"), String.class);
        assertEquals("20000>s2", replies.result().get(30, TimeUnit.SECONDS).value());
        for (int i = 0; i < 3; i++) {
            assertNotNull(replies.next()); // s1 is replying
        }
        long crashedAt = System.nanoTime();
        crash("s1");
        replies.awaitDone();
        long tookMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - crashedAt);
        ChainException e = replies.error();
        BrokenChainException broken = assertInstanceOf(BrokenChainException.class, e, "the set's error: " + e);
        assertEquals("s1", broken.host(), broken.getMessage());
        assertEquals(1, broken.hop(), broken.getMessage());
        assertTrue(broken.getMessage().contains("partial replies"), broken.getMessage());
        assertTrue(tookMs < DETECTION_BOUND_MS, "detected in " + tookMs + " ms, not after the timeout");
        assertTrue(replies.isPartial());
        assertEquals(1, client.brokenChains());
    }

    @Test
    void theChainsFutureFailsTheSameWayWhenItsResultArrivedBeforeTheDeath() throws Exception {
        var f = client.startChain(route("20000", "s1.linger", "s2.echo"));
        assertTrue(echoed.await(30, TimeUnit.SECONDS));
        Thread.sleep(300); // the result is in; s1 is still replying
        long crashedAt = System.nanoTime();
        crash("s1");
        Throwable cause = assertThrowsWithin(f);
        long tookMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - crashedAt);
        BrokenChainException broken = assertInstanceOf(BrokenChainException.class, cause);
        assertEquals("s1", broken.host());
        assertEquals(1, broken.hop());
        assertTrue(tookMs < DETECTION_BOUND_MS, "detected in " + tookMs + " ms");
    }

    @Test
    void aHopThatKeepsReplyingLongAfterTheResultIsNotBroken() throws Exception {
        long forMs = 4 * BROKEN_AFTER.toMillis();
        ReplySet<String> replies = client.startChainWithReplies(route(String.valueOf(forMs), "s1.linger", "s2.echo"),
                String.class);
        int n = 0;
        while (replies.hasMore()) {
            replies.next();
            n++;
        }
        assertEquals(null, replies.error(), "ended normally");
        assertTrue(n >= 10, "replied all along: " + n);
        assertEquals(0, client.brokenChains());
    }

    @Test
    void aHopThatKeepsReplyingDoesNotMaskTheDeathOfTheHopHoldingTheChain() throws Exception {
        var f = client.startChain(route("20000", "s1.linger", "s2.block", "s3.echo"));
        assertTrue(blocked.await(30, TimeUnit.SECONDS));
        long crashedAt = System.nanoTime();
        crash("s2");
        while (client.brokenChains() == 0) {
            assertTrue(System.nanoTime() - crashedAt < TimeUnit.MILLISECONDS.toNanos(DETECTION_BOUND_MS),
                    "not detected while s1 still replies");
            Thread.sleep(20);
        }
        long tookMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - crashedAt);
        assertTrue(tookMs >= BROKEN_AFTER.toMillis() - INTERVAL.toMillis() - 300, "not before s2's heartbeats could "
                + "have stopped: " + tookMs + " ms");
        // the diagnosis runs the chain again step by step (hop 1 waits for its first run, which still replies)
        Throwable cause = assertThrowsWithin(f);
        BrokenChainException broken = assertInstanceOf(BrokenChainException.class, cause, String.valueOf(cause));
        assertEquals("s2", broken.host(), broken.getMessage());
        assertEquals(2, broken.hop(), broken.getMessage());
    }

    private static Throwable assertThrowsWithin(java.util.concurrent.CompletableFuture<?> f) throws Exception {
        try {
            Object v = f.get(60, TimeUnit.SECONDS);
            throw new AssertionError("the chain succeeded: " + v);
        } catch (java.util.concurrent.ExecutionException e) {
            return e.getCause();
        }
    }
}
