package io.rpcc.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.rpcc.client.ChainCall;
import io.rpcc.client.ReplySet;
import io.rpcc.client.RpccClient;
import io.rpcc.core.ChainContext;
import io.rpcc.core.ChainState;
import io.rpcc.core.ChainingFunctionSource;
import io.rpcc.core.ServiceFunctionException;
import io.rpcc.core.StaticRoute;
import io.rpcc.core.SubChain;
import io.rpcc.core.SubChainRecovery;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Thousands of randomized chains of 1 to 3 hops whose hops start nested sub-chains at random, up to
 * 3 levels deep, each sub-chain of 1 to 3 hops on random servers (a server often re-entered while
 * its own sub-chain runs), every hop replying a random number of times from a random mix of
 * threads, executors, futures and virtual threads that may outlive it. One chain in ten runs in
 * interactive mode. Sub-chains are composed with their parents or return to their creators, at
 * random (per call, and one server that does not compose). Sub-chains fail at random, their
 * creators recovering or passing the failure on, and their replies go through their creators (with
 * or without a handler) or straight to the originator. For every chain: its result (or its expected
 * failure) is right, the replies received are exactly the replies the servers sent (none lost, none
 * twice), none arrives after its set ended, nothing hangs, and every parked chain was resumed or
 * dropped.
 */
class SubChainStressTest {
    static final int CHAINS = Integer.getInteger("rpcc.stress.chains", 3_000);
    static final int IN_FLIGHT = 64;
    static final int MAX_DEPTH = 3;
    static final ChainingFunctionSource SUB =
            ChainingFunctionSource.javaResource(SubChainStressTest.class, "/chains/StressSub.java");
    static Cluster cluster;
    static RpccClient client;
    static final List<RpccServer> servers = new ArrayList<>();
    static final ExecutorService pool = Executors.newFixedThreadPool(8);
    /** The replies the servers sent, by chain seed: recorded before each {@code preturn}. */
    static final Map<Long, Set<String>> sent = new ConcurrentHashMap<>();
    static final AtomicLong subChains = new AtomicLong();
    /** Chains whose failing sub-chain has no handler: they must end with its failure. */
    static final Set<Long> expectedFailures = ConcurrentHashMap.newKeySet();
    static final AtomicLong recovered = new AtomicLong();
    static final AtomicLong failing = new AtomicLong();
    static final AtomicLong viaHandler = new AtomicLong();
    static final AtomicLong straight = new AtomicLong();
    /** Failures that a creator's handler passed on (of sub-chains nested in the one it started). */
    static final AtomicLong passedOn = new AtomicLong();
    /** Composed sub-chains with a failure handler: their creators park the hop for it. */
    static final AtomicLong composedWithHandler = new AtomicLong();

    /**
     * The service function: params are {@code seed * 8 + fail * 4 + depth}. Replies as its random plan
     * says; throws if {@code fail}; then (below depth 3, one time in three) returns a sub-chain of 1 to
     * 3 "work" hops at depth + 1, whose chaining function ends it with this hop's params; else returns
     * its params. One sub-chain in four fails at its first hop: its creator's handler recovers with
     * this hop's params (two times in three; the chain's result is unchanged) or it has none (the
     * chain ends with that failure); one that does not fail gets a handler that passes failures on
     * (of its own nested sub-chains) one time in three. Its replies go through its creator (with or
     * without a pass-through handler) or straight to the originator, at random. It is composed with
     * its parent or returns to this server: as the server says (w4 returns), or either way per call.
     */
    static Object work(Object params) {
        long p = (Long) params;
        long seed = p >> 3;
        boolean fail = (p & 4) != 0;
        int depth = (int) (p & 3);
        ChainContext ctx = ChainContext.current();
        int hop = ctx.hop();
        Random r = new Random(seed * 104_729 + hop * 31L + depth);
        int tasks = r.nextInt(4);
        for (int t = 0; t < tasks; t++) {
            int replies = r.nextInt(4);
            int delayMicros = r.nextInt(3) == 0 ? r.nextInt(2000) : 0;
            int id = t;
            Runnable body = () -> {
                if (delayMicros > 0) {
                    LockSupport.parkNanos(TimeUnit.MICROSECONDS.toNanos(delayMicros));
                }
                for (int i = 0; i < replies; i++) {
                    String reply = seed + ":" + hop + ":" + id + ":" + i;
                    sent.computeIfAbsent(seed, k -> ConcurrentHashMap.newKeySet()).add(reply);
                    ChainContext.current().preturn(reply);
                }
            };
            switch (r.nextInt(5)) {
                case 0 -> body.run();
                case 1 -> ctx.startVirtualThread(body);
                case 2 -> ctx.executor(pool).execute(body);
                case 3 -> CompletableFuture.runAsync(body, ctx.executor(pool));
                default -> pool.execute(ctx.wrap(body));
            }
        }
        if (fail) {
            throw new IllegalStateException("stress failure in chain " + seed);
        }
        if (depth < MAX_DEPTH && r.nextInt(3) == 0) {
            subChains.incrementAndGet();
            List<String> more = new ArrayList<>();
            for (int i = r.nextInt(3); i > 0; i--) {
                more.add(server(r));
            }
            boolean fails = r.nextInt(4) == 0;
            SubChain sub = SubChain.to(server(r), "work").params(seed * 8 + (fails ? 4 : 0) + depth + 1)
                    .chainingFunction(SUB).state(ChainState.of("ret", p, "servers", String.join(",", more)));
            if (fails) {
                failing.incrementAndGet();
                if (r.nextInt(3) == 0) {
                    expectedFailures.add(seed);
                } else {
                    sub = sub.onFailure(e -> {
                        recovered.incrementAndGet();
                        return SubChainRecovery.recover(p);
                    });
                }
            } else if (r.nextInt(3) == 0) {
                sub = sub.onFailure(e -> {
                    passedOn.incrementAndGet();
                    return SubChainRecovery.passOn();
                });
            }
            switch (r.nextInt(3)) {
                case 0 -> { }
                case 1 -> {
                    viaHandler.incrementAndGet();
                    sub = sub.onReply((reply, h, host, passOn) -> passOn.accept(reply));
                }
                default -> {
                    straight.incrementAndGet();
                    sub = sub.repliesToOriginator();
                }
            }
            // composed or returned to this server: as the server says (w4 returns), or either way
            sub = switch ((int) Math.floorMod(seed * 31 + hop * 7L + depth, 3L)) {
                case 0 -> sub;
                case 1 -> sub.composition(true);
                default -> sub.composition(false);
            };
            if (sub.failureHandler() != null && sub.composition().orElse(!ctx.node().equals("w4"))) {
                composedWithHandler.incrementAndGet(); // its creator parks the hop for the handler
            }
            return sub;
        }
        return p;
    }

    static String server(Random r) {
        return "w" + (1 + r.nextInt(4));
    }

    static StaticRoute route(long seed) {
        Random r = new Random(seed);
        List<StaticRoute.Hop> hops = new ArrayList<>();
        for (int i = 1 + r.nextInt(3); i > 0; i--) {
            hops.add(StaticRoute.hop(server(r), "work"));
        }
        return StaticRoute.of(hops);
    }

    @BeforeAll
    static void start() {
        cluster = new Cluster();
        for (int i = 1; i <= 4; i++) {
            boolean composes = i != 4;
            servers.add(cluster.server("w" + i, b -> b.subChainComposition(composes)
                    .service("work", SubChainStressTest::work)));
        }
        client = cluster.client();
    }

    @AfterAll
    static void stop() throws Exception {
        cluster.close();
        pool.shutdownNow();
    }

    @Test
    @Timeout(value = 10, unit = TimeUnit.MINUTES)
    void everyReplyOfEverySubChainArrivesExactlyOnceAndNoneAfterTheEnd() throws Exception {
        Semaphore window = new Semaphore(IN_FLIGHT);
        ConcurrentLinkedQueue<String> problems = new ConcurrentLinkedQueue<>();
        ConcurrentLinkedQueue<ReplySet<String>> sets = new ConcurrentLinkedQueue<>();
        AtomicLong received = new AtomicLong();
        for (long seed = 1; seed <= CHAINS; seed++) {
            window.acquire();
            long s = seed;
            ReplySet<String> replies = client.startChainWithReplies(
                    ChainCall.along(route(s), s * 8).interactive(s % 10 == 0), String.class);
            sets.add(replies);
            replies.whenDone().whenComplete((set, e) -> {
                try {
                    List<String> got = new ArrayList<>();
                    while (replies.hasMore()) { // the set has ended: this never blocks
                        got.add(replies.next());
                    }
                    received.addAndGet(got.size());
                    if (expectedFailures.contains(s)) {
                        if (!(replies.error() instanceof ServiceFunctionException sfe)
                                || !sfe.remoteMessage().contains("stress failure in chain " + s)) {
                            problems.add("chain " + s + " should have failed in its sub-chain: " + replies.error());
                        }
                    } else if (replies.isPartial()) {
                        problems.add("chain " + s + " ended partial: " + replies.error());
                    } else if (!Long.valueOf(s * 8).equals(replies.result().join().value())) {
                        problems.add("chain " + s + " result " + replies.result().join().value());
                    }
                    if (got.size() != new HashSet<>(got).size()) {
                        problems.add("chain " + s + " duplicate replies " + got);
                    }
                    Set<String> expected = sent.getOrDefault(s, Set.of());
                    if (!new HashSet<>(got).equals(expected)) {
                        problems.add("chain " + s + " expected " + expected.size() + " replies, got " + got.size());
                    }
                } catch (RuntimeException ex) {
                    problems.add("chain " + s + ": " + ex);
                } finally {
                    window.release();
                }
            });
        }
        assertTrue(window.tryAcquire(IN_FLIGHT, 5, TimeUnit.MINUTES), "every chain ended");
        Thread.sleep(300); // anything still on its way would now arrive as a late frame
        assertEquals(List.of(), List.copyOf(problems).subList(0, Math.min(20, problems.size())));
        int afterEnd = 0;
        for (ReplySet<String> r : sets) {
            afterEnd += r.arrivedAfterEnd();
        }
        assertEquals(0, afterEnd, "replies that arrived after their set ended");
        assertEquals(0, client.lateFrames(), "frames for chains that had already finished");
        assertEquals(0, client.chainsInFlight());
        assertTrue(subChains.get() > CHAINS / 4, "sub-chains started: " + subChains.get());
        long returned = servers.stream().mapToLong(RpccServer::subChainReturns).sum();
        assertTrue(returned > subChains.get() / 5 && returned < subChains.get() * 4 / 5,
                "both composed and returned sub-chains: " + returned + " of " + subChains.get() + " returned");
        // a composed sub-chain's creator keeps the hop it parked for a failure handler until the chain's
        // deadline (here none: 10 min) plus 5 s if the sub-chain ended elsewhere without failing; every
        // other parked hop was resumed
        int parked = servers.stream().mapToInt(RpccServer::parkedChains).sum();
        assertTrue(parked <= composedWithHandler.get(), parked + " parked, " + composedWithHandler.get()
                + " composed sub-chains with a failure handler");
        for (RpccServer server : servers) {
            assertEquals(0, server.hopsInFlight());
        }
        assertTrue(recovered.get() > 0 && !expectedFailures.isEmpty() && viaHandler.get() > 0 && straight.get() > 0
                && passedOn.get() > 0 && composedWithHandler.get() > 0);
        for (RpccServer server : servers) {
            assertEquals(0, server.relayedRepliesLost(), "replies passed on by creators");
        }
        System.out.printf("%d chains, %d sub-chains (%d returned to their creators, the rest composed; %d failing: "
                        + "%d recovered by their creator, %d passed on by a handler, %d chains failed; %d composed with "
                        + "a failure handler, %d of their entries still held; replies through a handler: %d, straight: "
                        + "%d), %d replies: all delivered exactly once, none after the end%n", CHAINS, subChains.get(),
                returned, failing.get(), recovered.get(), passedOn.get(), expectedFailures.size(),
                composedWithHandler.get(), parked, viaHandler.get(), straight.get(), received.get());
    }
}
