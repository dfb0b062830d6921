package io.rpcc.server;

import static org.junit.jupiter.api.Assertions.assertTrue;

import io.rpcc.client.ChainCall;
import io.rpcc.client.Heartbeats;
import io.rpcc.client.RpccClient;
import io.rpcc.core.ChainContext;
import io.rpcc.core.ChainState;
import io.rpcc.core.ChainingFunctionSource;
import io.rpcc.core.StaticRoute;
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
 * Thousands of randomized chains of 1 to 3 hops whose hops start nested sub-chains at random, up to
 * 3 levels deep, each sub-chain of 1 to 3 hops on random servers (a server often re-entered while
 * its own sub-chain runs), every hop replying a random number of times from a random mix of
 * threads, executors, futures and virtual threads that may outlive it (the harness of
 * {@link ChainStress}). One chain in ten runs in interactive mode. Sub-chains are composed with their
 * parents or return to their creators, at random (per call, and one server that does not compose).
 * Sub-chains fail at random, their creators recovering or passing the failure on, and their replies
 * go through their creators (with or without a handler) or straight to the originator. For every
 * chain: its result (or its expected failure) is right, the replies received are exactly the
 * replies the servers sent (none lost, none twice), none arrives after its set ended, nothing
 * hangs, and every parked chain was resumed or dropped.
 */
class SubChainStressTest {
    static final int CHAINS = StressDepth.size("rpcc.stress.chains", 3_000, 10_000);
    static final int IN_FLIGHT = 64;
    static final int MAX_DEPTH = 3;
    static final ChainingFunctionSource SUB =
            ChainingFunctionSource.javaResource(SubChainStressTest.class, "/chains/StressSub.java");
    static Cluster cluster;
    static RpccClient client;
    static final List<RpccServer> servers = new ArrayList<>();
    static final ChainStress stress = new ChainStress();
    static final AtomicLong subChains = new AtomicLong();

    /**
     * The service function: params are {@code seed * 8 + fail * 4 + depth}. Replies as its random plan
     * says; throws if {@code fail}; then (below depth 3, one time in three) returns a sub-chain of 1 to
     * 3 "work" hops at depth + 1, whose chaining function ends it with this hop's params; else returns
     * its params. One sub-chain in four fails at its first hop: its creator's handler recovers with
     * this hop's params (the chain's result is unchanged) or it has none (the chain ends with that
     * failure); its failures, replies and composition are drawn by {@link ChainStress#handled} (w4
     * does not compose).
     */
    static Object work(Object params) {
        long p = (Long) params;
        long seed = p >> 3;
        boolean fail = (p & 4) != 0;
        int depth = (int) (p & 3);
        ChainContext ctx = ChainContext.current();
        int hop = ctx.hop();
        Random r = new Random(seed * 104_729 + hop * 31L + depth);
        stress.replyAtRandom(r, seed, String.valueOf(hop));
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
            return stress.handled(sub, r, seed, p, fails, ChainStress.Unhandled.FAILS_CHAIN,
                    !ctx.node().equals("w4"));
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
        // declared broken only after a minute: a starved machine can delay a healthy chain's
        // heartbeats past the default 6 s (see SplitMergeStressTest and ChainStress)
        client = cluster.client(b -> b.heartbeats(Heartbeats.every(Duration.ofSeconds(3), Duration.ofMinutes(1))));
    }

    @AfterAll
    static void stop() throws Exception {
        cluster.close();
        stress.close();
    }

    @Test
    @Timeout(value = 10, unit = TimeUnit.MINUTES)
    void everyReplyOfEverySubChainArrivesExactlyOnceAndNoneAfterTheEnd() throws Exception {
        long start = System.nanoTime();
        long received = stress.run(client, CHAINS, IN_FLIGHT, s -> client.startChainWithReplies(
                        ChainCall.along(route(s), s * 8).interactive(s % 10 == 0), String.class), s -> s * 8,
                s -> stress.failsChain(s, "stress failure in chain " + s));
        assertTrue(subChains.get() > CHAINS / 4, "sub-chains started: " + subChains.get());
        long[] returnedAndParked = stress.checkServers(servers, subChains.get());
        System.out.printf("%d chains, %d sub-chains (%d returned to their creators, the rest composed; %s; %d chains "
                        + "failed; %d handler entries still held), %d replies in %d ms: all delivered exactly once, "
                        + "none after the end%n", CHAINS, subChains.get(), returnedAndParked[0], stress.handling(),
                stress.failingChains(), returnedAndParked[1], received,
                TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start));
    }
}
