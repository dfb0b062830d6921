package io.rpcc.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.rpcc.client.ChainCall;
import io.rpcc.client.Heartbeats;
import io.rpcc.client.RpccClient;
import io.rpcc.core.ChainContext;
import io.rpcc.core.ChainState;
import io.rpcc.core.ChainingFunctionSource;
import io.rpcc.core.SubChain;
import io.rpcc.core.testing.StressDepth;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Thousands of randomized chains that split (fan-out 1 to 4, nested up to 3 levels), merge with a
 * merge function or the default merge at random merge hosts, fail in branches, and start sub-chains
 * (nested up to 3 deep, some of which split inside), every hop replying a random number of times
 * from threads that may outlive it (the harness of {@link ChainStress}); one chain in ten runs in
 * interactive mode. Sub-chains are composed or returned (per call, and one server that does not
 * compose), fail at random (their creators recover, pass the failure on, or, on a branch, have no
 * handler: the branch fails), and their replies go through their creators (with or without a
 * handler) or straight to the originator. For every chain: its result is right (merge functions
 * recover from every failed branch), every reply arrives exactly once, none after its set ended,
 * nothing hangs, no split is left waiting at any merge host, and every parked hop was resumed or
 * is a composed sub-chain's handler entry.
 *
 * <p>The client's heartbeats are sent as by default, but a chain is declared broken only after a
 * minute of silence, longer than its 20 s timeout: so no chain is ever declared broken, and every
 * frame that arrives for a chain that had finished is a fault. With the default 6 s, a machine
 * starved of CPU could leave a healthy chain without a heartbeat that long: it was declared broken,
 * its diagnosis ran it again step by step and it ended with its result and every reply (replayed by
 * the servers, delivered once), while the frames of the attempt it replaced, still on their way,
 * were counted as late, as designed ({@code ChainHeartbeatTest} covers breaks and their diagnosis).
 */
class SplitMergeStressTest {
    static final int CHAINS = StressDepth.size("rpcc.stress.splitChains", 4_000, 10_000);
    static final int IN_FLIGHT = 64;
    static final int MAX_DEPTH = 3;
    static final ChainingFunctionSource SPLIT =
            ChainingFunctionSource.javaResource(SplitMergeStressTest.class, "/chains/StressSplit.java");
    static final ChainingFunctionSource SUB =
            ChainingFunctionSource.javaResource(SplitMergeStressTest.class, "/chains/StressSub.java");
    static Cluster cluster;
    static RpccClient client;
    static final List<RpccServer> servers = new ArrayList<>();
    static final ChainStress stress = new ChainStress();
    static final AtomicLong branches = new AtomicLong();
    static final AtomicLong failures = new AtomicLong();
    static final AtomicLong subChains = new AtomicLong();
    /** Sub-chains that split. */
    static final AtomicLong splitting = new AtomicLong();
    /** Sub-chains started on a branch. */
    static final AtomicLong onBranch = new AtomicLong();

    /**
     * The service function: params are {@code seed * 8 + fail * 4 + depth} (of sub-chains). Replies at
     * random; throws if {@code fail}; then (below depth 3, one time in six) returns a sub-chain at
     * depth + 1 that either runs 0 to 2 more "work" hops or splits; else returns its params. One
     * sub-chain in four fails at its first hop; its failures, replies and composition are drawn by
     * {@link ChainStress#handled} (w4 does not compose): without a handler only on a branch, whose
     * failed outcome a merge function recovers from, so that every chain ends with its result.
     */
    static Object work(Object params) {
        long p = (Long) params;
        long seed = p >> 3;
        boolean fail = (p & 4) != 0;
        int depth = (int) (p & 3);
        ChainContext ctx = ChainContext.current();
        if (!ctx.branch().isRoot()) {
            branches.incrementAndGet();
        }
        Random r = new Random(seed * 104_729 + ctx.hop() * 31L + depth + ctx.branch().hashCode() * 17L);
        stress.replyAtRandom(r, seed, ctx.hop() + "@" + ctx.branch());
        if (fail) {
            throw new IllegalStateException("stress failure in chain " + seed);
        }
        if (depth < MAX_DEPTH && r.nextInt(6) == 0) {
            subChains.incrementAndGet();
            String at = server(r);
            boolean fails = r.nextInt(4) == 0;
            long next = seed * 8 + (fails ? 4 : 0) + depth + 1;
            SubChain sub;
            if (r.nextBoolean()) { // a sub-chain that splits
                splitting.incrementAndGet();
                sub = SubChain.to(at, "work").params(next).chainingFunction(SPLIT)
                        .state(ChainState.of("mode", "split", "seed", seed, "depth", 1, "ret", p));
            } else {
                List<String> more = new ArrayList<>();
                for (int i = r.nextInt(3); i > 0; i--) {
                    more.add(server(r));
                }
                sub = SubChain.to(at, "work").params(next).chainingFunction(SUB)
                        .state(ChainState.of("ret", p, "servers", String.join(",", more)));
            }
            if (!ctx.branch().isRoot()) {
                onBranch.incrementAndGet();
            }
            return stress.handled(sub, r, seed, p, fails, ctx.branch().isRoot() ? ChainStress.Unhandled.NEVER
                    : ChainStress.Unhandled.FAILS_BRANCH, !ctx.node().equals("w4"));
        }
        return p;
    }

    /** A branch that replies, then fails (its replies still arrive, exactly once). */
    static Object flaky(Object params) {
        long seed = (Long) params >> 3;
        ChainContext ctx = ChainContext.current();
        failures.incrementAndGet();
        stress.replyAtRandom(new Random(seed * 7 + ctx.hop()), seed, ctx.hop() + "@" + ctx.branch() + "!");
        throw new IllegalStateException("planned failure of branch " + ctx.branch());
    }

    static String server(Random r) {
        return "w" + (1 + r.nextInt(4));
    }

    @BeforeAll
    static void start() {
        cluster = new Cluster();
        for (int i = 1; i <= 4; i++) {
            boolean composes = i != 4;
            servers.add(cluster.server("w" + i, b -> b.subChainComposition(composes)
                    .service("work", SplitMergeStressTest::work).service("flaky", SplitMergeStressTest::flaky)));
        }
        client = cluster.client(b -> b.heartbeats(Heartbeats.every(Duration.ofSeconds(3), Duration.ofMinutes(1))));
    }

    @AfterAll
    static void stop() throws Exception {
        cluster.close();
        stress.close();
    }

    @Test
    @Timeout(value = 10, unit = TimeUnit.MINUTES)
    void everyReplyOfEveryBranchArrivesExactlyOnceAndNoneAfterTheEnd() throws Exception {
        long start = System.nanoTime();
        long received = stress.run(client, CHAINS, IN_FLIGHT, s -> client.startChainWithReplies(
                ChainCall.to(server(new Random(s)), "work").params(s * 8).chainingFunction(SPLIT)
                        .state(ChainState.of("mode", "split", "seed", s, "depth", 0, "ret", s * 8))
                        .interactive(s % 10 == 0), String.class), s -> s * 8);
        assertTrue(branches.get() > CHAINS, "branches: " + branches.get());
        assertTrue(failures.get() > CHAINS / 10, "failed branches: " + failures.get());
        assertTrue(subChains.get() > CHAINS / 10, "sub-chains: " + subChains.get());
        assertTrue(onBranch.get() > subChains.get() / 4 && splitting.get() > subChains.get() / 4,
                "sub-chains on branches: " + onBranch.get() + ", splitting: " + splitting.get());
        for (RpccServer server : servers) {
            assertEquals(0, server.waitingMerges(), "no split left waiting at " + server.name());
            assertEquals(0, server.stats().droppedBranchOutcomes(), "no outcome dropped at " + server.name());
        }
        long[] returnedAndParked = stress.checkServers(servers, subChains.get());
        System.out.printf("%d chains, %d branch hops, %d failed branches, %d sub-chains (%d on branches, %d splitting; "
                        + "%d returned to their creators, the rest composed; %s; %d handler entries still held), "
                        + "%d replies in %d ms: all delivered exactly once, none after the end%n", CHAINS,
                branches.get(), failures.get(), subChains.get(), onBranch.get(), splitting.get(),
                returnedAndParked[0], stress.handling(), returnedAndParked[1], received,
                TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start));
    }
}
