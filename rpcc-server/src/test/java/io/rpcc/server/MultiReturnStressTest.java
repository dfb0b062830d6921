package io.rpcc.server;

import io.rpcc.client.ChainCall;
import io.rpcc.client.Heartbeats;
import io.rpcc.client.RpccClient;
import io.rpcc.core.ChainContext;
import io.rpcc.core.StaticRoute;
import io.rpcc.core.testing.StressDepth;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.AfterParameterizedClassInvocation;
import org.junit.jupiter.params.BeforeParameterizedClassInvocation;
import org.junit.jupiter.params.Parameter;
import org.junit.jupiter.params.ParameterizedClass;
import org.junit.jupiter.params.provider.EnumSource;
import org.junit.jupiter.api.Timeout;

/**
 * Many thousands of randomized chains of 1 to 4 hops, each hop replying from a random mix of
 * threads, executors, futures and virtual threads, with random delays before and after the service
 * function returns. For every chain: the replies received are exactly the replies sent (no loss, no
 * duplicate), none arrives after the set ended, and nothing hangs.
 */
@ParameterizedClass(name = "{0}")
@EnumSource(Cluster.Security.class)
class MultiReturnStressTest {
    /** Plaintext or mutual TLS: the run's argument, which {@link #start} sets the cluster up with. */
    @Parameter
    Cluster.Security security;

    static final int CHAINS = StressDepth.size("rpcc.stress.chains", 4_000, 10_000);
    static final int IN_FLIGHT = 64;
    static Cluster cluster;
    static RpccClient client;
    static final ExecutorService pool = Executors.newFixedThreadPool(8);

    /** One piece of work a hop does. */
    record Task(int id, int kind, int replies, int delayMicros) {
    }

    /** What hop {@code hop} of chain {@code seed} does: the same at the server and in the test. */
    static List<Task> plan(long seed, int hop) {
        Random r = new Random(seed * 7919 + hop);
        List<Task> tasks = new ArrayList<>();
        int n = r.nextInt(5);
        for (int i = 0; i < n; i++) {
            tasks.add(new Task(i, r.nextInt(6), r.nextInt(4), r.nextInt(3) == 0 ? r.nextInt(2000) : 0));
        }
        return tasks;
    }

    static List<StaticRoute.Hop> route(long seed) {
        Random r = new Random(seed);
        List<StaticRoute.Hop> hops = new ArrayList<>();
        int n = 1 + r.nextInt(4);
        for (int i = 0; i < n; i++) {
            hops.add(StaticRoute.hop("w" + (1 + r.nextInt(4)), "work"));
        }
        return hops;
    }

    static Set<String> expected(long seed) {
        Set<String> out = new HashSet<>();
        int hops = route(seed).size();
        for (int hop = 1; hop <= hops; hop++) {
            for (Task t : plan(seed, hop)) {
                for (int i = 0; i < t.replies(); i++) {
                    out.add(seed + ":" + hop + ":" + t.id() + ":" + i);
                }
            }
        }
        return out;
    }

    static Object work(Object params) {
        long seed = (Long) params;
        ChainContext ctx = ChainContext.current();
        int hop = ctx.hop();
        for (Task t : plan(seed, hop)) {
            Runnable body = () -> {
                if (t.delayMicros() > 0) {
                    LockSupport.parkNanos(TimeUnit.MICROSECONDS.toNanos(t.delayMicros()));
                }
                for (int i = 0; i < t.replies(); i++) {
                    ChainContext.current().preturn(seed + ":" + hop + ":" + t.id() + ":" + i);
                }
            };
            switch (t.kind()) {
                case 0 -> body.run();
                case 1 -> ctx.startVirtualThread(body);
                case 2 -> ctx.executor(pool).execute(body);
                case 3 -> CompletableFuture.runAsync(body, ctx.executor(pool));
                case 4 -> pool.execute(ctx.wrap(body));
                default -> {
                    if (t.id() == 0) {
                        ctx.startThread(body); // a platform thread, now and then
                    } else {
                        ctx.startVirtualThread(body);
                    }
                }
            }
        }
        if (seed % 5 == 0) {
            LockSupport.parkNanos(TimeUnit.MICROSECONDS.toNanos(300)); // let some tasks finish before the return
        }
        return seed;
    }

    @BeforeParameterizedClassInvocation
    static void start(Cluster.Security security) {
        cluster = new Cluster(security);
        for (int i = 1; i <= 4; i++) {
            cluster.server("w" + i, b -> b.service("work", MultiReturnStressTest::work));
        }
        // declared broken only after a minute: a starved machine can delay a healthy chain's
        // heartbeats past the default 6 s (see SplitMergeStressTest and ChainStress)
        client = cluster.client(b -> b.heartbeats(Heartbeats.every(Duration.ofSeconds(3), Duration.ofMinutes(1))));
    }

    @AfterParameterizedClassInvocation
    static void stop() throws Exception {
        cluster.close();
    }

    @AfterAll
    static void shutDownPool() {
        pool.shutdownNow();
    }

    @Test
    @Timeout(value = 10, unit = TimeUnit.MINUTES)
    void everyReplyArrivesExactlyOnceAndNoneAfterTheEnd() throws Exception {
        try (ChainStress stress = new ChainStress()) {
            long replies = stress.run(client, CHAINS, IN_FLIGHT,
                    s -> client.startChainWithReplies(ChainCall.along(StaticRoute.of(route(s)), s), String.class),
                    s -> s, s -> null, MultiReturnStressTest::expected);
            System.out.printf("%d chains, %d replies: all delivered exactly once, none after the end%n", CHAINS,
                    replies);
        }
    }
}
