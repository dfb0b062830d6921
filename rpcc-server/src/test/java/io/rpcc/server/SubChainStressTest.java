package io.rpcc.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.rpcc.client.ChainCall;
import io.rpcc.client.RpccClient;
import io.rpcc.core.ChainContext;
import io.rpcc.core.ChainState;
import io.rpcc.core.ChainingFunctionSource;
import io.rpcc.core.StaticRoute;
import io.rpcc.core.SubChain;
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
 * threads, executors, futures and virtual threads that may outlive it. One chain in ten runs in
 * interactive mode. For every chain: its result is right, the replies received are exactly the
 * replies the servers sent (none lost, none twice), none arrives after its set ended, nothing hangs,
 * and every parked chain was resumed.
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
    static final ChainStress stress = new ChainStress();
    static final AtomicLong subChains = new AtomicLong();

    /**
     * The service function: params are {@code seed * 8 + depth}. Replies as its random plan says,
     * then (below depth 3, one time in three) returns a sub-chain of 1 to 3 "work" hops at depth + 1,
     * whose chaining function ends it with this hop's params; else returns its params.
     */
    static Object work(Object params) {
        long p = (Long) params;
        long seed = p >> 3;
        int depth = (int) (p & 7);
        int hop = ChainContext.current().hop();
        Random r = new Random(seed * 104_729 + hop * 31L + depth);
        stress.replyAtRandom(r, seed, String.valueOf(hop));
        if (depth < MAX_DEPTH && r.nextInt(3) == 0) {
            subChains.incrementAndGet();
            List<String> more = new ArrayList<>();
            for (int i = r.nextInt(3); i > 0; i--) {
                more.add(server(r));
            }
            return SubChain.to(server(r), "work").params(seed * 8 + depth + 1).chainingFunction(SUB)
                    .state(ChainState.of("ret", p, "servers", String.join(",", more)));
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
            servers.add(cluster.server("w" + i, b -> b.service("work", SubChainStressTest::work)));
        }
        client = cluster.client();
    }

    @AfterAll
    static void stop() throws Exception {
        cluster.close();
        stress.close();
    }

    @Test
    @Timeout(value = 10, unit = TimeUnit.MINUTES)
    void everyReplyOfEverySubChainArrivesExactlyOnceAndNoneAfterTheEnd() throws Exception {
        long received = stress.run(client, CHAINS, IN_FLIGHT, s -> client.startChainWithReplies(
                ChainCall.along(route(s), s * 8).interactive(s % 10 == 0), String.class), s -> s * 8);
        assertTrue(subChains.get() > CHAINS / 4, "sub-chains started: " + subChains.get());
        for (RpccServer server : servers) {
            assertEquals(0, server.parkedChains(), "every parked chain was resumed");
            assertEquals(0, server.hopsInFlight());
        }
        System.out.printf("%d chains, %d sub-chains, %d replies: all delivered exactly once, none after the end%n",
                CHAINS, subChains.get(), received);
    }
}
