package io.rpcc.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.ByteBufAllocatorMetricProvider;
import io.rpcc.client.ChainCall;
import io.rpcc.client.ReplySet;
import io.rpcc.client.RpccClient;
import io.rpcc.core.ChainCancelledException;
import io.rpcc.core.ChainContext;
import io.rpcc.core.ChainResult;
import io.rpcc.core.ChainTimeoutException;
import io.rpcc.core.DeadlineExceededException;
import io.rpcc.core.StaticRoute;
import io.rpcc.core.testing.HostResources;
import io.rpcc.core.testing.StressDepth;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import org.junit.jupiter.api.Test;

/**
 * 1,000 chains (5,000 with {@code -Drpcc.stress=long}: {@link StressDepth}) of 1 to 5 hops, each cancelled at a random moment (by its future, its reply set or
 * a tiny timeout) while its hops sleep, send replies or hand work to other threads: every call
 * ends with its result or the cancel, and nothing is left behind: no chain in the originator's
 * table, no entry in any node's trail table, no running hop or open reply stream at any server, no
 * thread, no buffer (Netty's leak detector fails the class on a leaked one).
 */
class CancellationStressTest {
    static final int CHAINS = StressDepth.size(1_000, 5_000);
    static final Duration TIMEOUT = Duration.ofSeconds(3);

    /** Sleeps up to the params' millis, sends a reply or two (one from a context thread), then returns them. */
    static Object hop(Object p) throws InterruptedException {
        int millis = (Integer) p;
        ChainContext ctx = ChainContext.current();
        ctx.preturn("at " + ctx.node());
        if (millis % 2 == 0) {
            ctx.startVirtualThread(() -> {
                LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(millis));
                ChainContext.current().preturn("late at " + ChainContext.current().node());
            });
        }
        Thread.sleep(millis);
        return p;
    }

    @Test
    void cancellationsAtRandomMomentsLeaveNothingBehind() throws Exception {
        try (Cluster cluster = new Cluster()) {
            List<RpccServer> servers = new ArrayList<>();
            for (int i = 1; i <= 5; i++) {
                // without the sandbox: its JVM-wide pool of platform threads grows with the number of
                // chaining functions running at once and shrinks a minute later, which is not what this measures
                servers.add(cluster.server("s" + i, b -> b.withoutSandbox().service("hop", CancellationStressTest::hop)));
            }
            RpccClient client = cluster.client();
            List<StaticRoute> routes = new ArrayList<>();
            for (int n = 1; n <= 5; n++) {
                List<StaticRoute.Hop> hops = new ArrayList<>();
                for (int i = 1; i <= n; i++) {
                    hops.add(StaticRoute.hop("s" + i, "hop"));
                }
                routes.add(StaticRoute.of(hops));
            }
            client.runChain(ChainCall.along(routes.get(4), 1)); // connections and threads as a steady state has them
            HostResources before = HostResources.now();
            long directBefore = usedDirectMemory();

            long seed = StressDepth.seed(CancellationStressTest.class);
            Random random = new Random(seed);
            Map<String, Integer> outcomes = new ConcurrentHashMap<>();
            List<CompletableFuture<?>> ends = new ArrayList<>();
            for (int i = 0; i < CHAINS; i++) {
                ChainCall call = ChainCall.along(routes.get(random.nextInt(5)), random.nextInt(4)).timeout(TIMEOUT);
                int how = random.nextInt(3);
                long waitNanos = random.nextInt(5_000_000);
                switch (how) {
                    case 0 -> {
                        CompletableFuture<ChainResult> f = client.startChain(call);
                        LockSupport.parkNanos(waitNanos);
                        f.cancel(true);
                        ends.add(f.handle((r, e) -> outcomes.merge(outcome(e), 1, Integer::sum)));
                    }
                    case 1 -> {
                        ReplySet<Object> replies = client.startChainWithReplies(call, Object.class);
                        LockSupport.parkNanos(waitNanos);
                        replies.cancel();
                        ends.add(replies.whenDone().thenAccept(set -> outcomes.merge(set.arrivedAfterEnd() > 0
                                ? "other: a reply delivered after its set ended" : outcome(set.error()), 1, Integer::sum)));
                    }
                    default -> {
                        CompletableFuture<ChainResult> f = client.startChain(call.timeout(
                                Duration.ofNanos(1_000_000 + waitNanos)));
                        ends.add(f.handle((r, e) -> outcomes.merge(outcome(e), 1, Integer::sum)));
                    }
                }
            }
            CompletableFuture.allOf(ends.toArray(CompletableFuture[]::new)).get(60, TimeUnit.SECONDS);
            assertEquals(CHAINS, outcomes.values().stream().mapToInt(Integer::intValue).sum());
            assertTrue(outcomes.getOrDefault("cancelled", 0) > CHAINS / 10, () -> "seed " + seed + ": " + outcomes);
            assertTrue(outcomes.keySet().stream().noneMatch(k -> k.startsWith("other")), () -> "seed " + seed + ": "
                    + outcomes);

            long until = System.nanoTime() + TIMEOUT.toNanos() + TimeUnit.SECONDS.toNanos(20); // budget + 5 s grace
            // every table back where it starts: trails are kept for a chain's budget plus a grace, the rest while it runs
            String empty = "client pending 0, servers [s1 0/0/0, s2 0/0/0, s3 0/0/0, s4 0/0/0, s5 0/0/0]";
            while (System.nanoTime() < until && !tables(client, servers).equals(empty)) {
                Thread.sleep(100);
            }
            assertEquals(empty, tables(client, servers), () -> "seed " + seed + ": tables left behind (trails/hops/streams)");
            client.runChain(ChainCall.along(routes.get(4), 1)); // and the nodes still serve
            HostResources.assertBackTo(before, 4, 8, 64L << 20);
            long directAfter = usedDirectMemory();
            assertTrue(directAfter <= directBefore + (16L << 20), "direct memory " + directBefore + " -> " + directAfter);
            System.out.println("cancellation stress (seed " + seed + "): " + outcomes + ", late frames at the client "
                    + client.lateFrames() + ", hops refused after their cancel "
                    + servers.stream().mapToLong(RpccServer::refusedAfterCancel).sum());
        }
    }

    private static String outcome(Throwable e) {
        if (e == null) {
            return "completed";
        }
        Throwable t = e instanceof CompletionException && e.getCause() != null ? e.getCause() : e;
        if (t instanceof CancellationException || t instanceof ChainCancelledException) {
            return "cancelled";
        }
        if (t instanceof ChainTimeoutException) {
            return "timed out";
        }
        // a tiny timeout is a tiny deadline too: a hop may arrive past it and end the chain first
        return t instanceof DeadlineExceededException ? "past deadline" : "other: " + t;
    }

    /**
     * What the nodes keep per chain: the originator's pending chains, and at each server
     * its trails (ChainTrails), running hops (RunningHops) and open reply streams (their windows).
     */
    private static String tables(RpccClient client, List<RpccServer> servers) {
        return "client pending " + client.chainsInFlight()
                + ", servers " + servers.stream().map(s -> s.name() + " " + s.trackedChains() + "/" + s.hopsInFlight()
                + "/" + s.replyStreams()).toList();
    }

    private static long usedDirectMemory() {
        if (ByteBufAllocator.DEFAULT instanceof ByteBufAllocatorMetricProvider m) {
            return m.metric().usedDirectMemory();
        }
        fail("the default allocator reports no metrics: " + ByteBufAllocator.DEFAULT);
        return 0;
    }
}
