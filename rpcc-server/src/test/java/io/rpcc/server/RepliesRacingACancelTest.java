package io.rpcc.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.rpcc.client.ChainCall;
import io.rpcc.client.ReplySet;
import io.rpcc.client.RpccClient;
import io.rpcc.core.ChainCancelledException;
import io.rpcc.core.ChainException;
import io.rpcc.core.ChainContext;
import io.rpcc.core.ChainState;
import io.rpcc.core.ChainTimeoutException;
import io.rpcc.core.DeadlineExceededException;
import io.rpcc.core.StaticRoute;
import io.rpcc.core.testing.StressDepth;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import org.junit.jupiter.api.Test;

/**
 * A cancel (or a timeout) ends a reply set on another thread than the event loops on which its
 * replies are still arriving: whatever was on its way when the set ended is dropped as late, and
 * none is delivered into the ended set. Thousands of 2-hop chains whose hops flood replies from two
 * threads each: a third cancelled at a random moment within 20 ms of their start, a third at a
 * random moment within 2 ms of their first reply (so that replies are in flight however loaded the
 * machine), a third given a timeout of a few milliseconds (the seed is printed; {@code -Drpcc.repliesRacingACancel.seed} replays the times).
 */
class RepliesRacingACancelTest {
    private static final int CHAINS = StressDepth.size("rpcc.repliesRacingACancel.chains", 3_000, 10_000);
    private static final int AT_ONCE = 24;

    private static Object flood(Object p) {
        ChainContext ctx = ChainContext.current();
        for (int t = 0; t < 2; t++) {
            ctx.startThread(() -> {
                try {
                    for (int i = 0; ; i++) {
                        ctx.preturn(p + ":" + i);
                    }
                } catch (RuntimeException cancelled) {
                    // the chain was cancelled: preturn throws, the producer stops
                }
            });
        }
        return p;
    }

    @Test
    void aReplyRacingACancelIsDroppedNeverDeliveredAfterTheEnd() throws Exception {
        long seed = Long.getLong("rpcc.repliesRacingACancel.seed", System.nanoTime());
        System.out.println("RepliesRacingACancelTest seed " + seed + " (-Drpcc.repliesRacingACancel.seed=" + seed + " replays the times)");
        SplittableRandom random = new SplittableRandom(seed);
        ScheduledExecutorService cancels = Executors.newScheduledThreadPool(2);
        try (Cluster cluster = new Cluster()) {
            cluster.server("s1", b -> b.service("flood", RepliesRacingACancelTest::flood));
            cluster.server("s2", b -> b.service("flood", RepliesRacingACancelTest::flood));
            RpccClient client = cluster.client();
            StaticRoute route = StaticRoute.of(StaticRoute.hop("s1", "flood"), StaticRoute.hop("s2", "flood"));
            int afterEnd = 0;
            int received = 0;
            for (int from = 0; from < CHAINS; from += AT_ONCE) {
                List<ReplySet<String>> sets = new ArrayList<>();
                for (int i = from; i < Math.min(CHAINS, from + AT_ONCE); i++) {
                    boolean timesOut = i % 3 == 2; // a third end at their timeout, on the node's timer
                    ReplySet<String> set = client.startChainWithReplies(ChainCall.along(route, "c" + i)
                            .timeout(timesOut ? Duration.ofMillis(1 + random.nextInt(20)) : Duration.ofSeconds(20)),
                            String.class);
                    sets.add(set);
                    if (i % 3 == 0) {
                        cancels.schedule(set::cancel, random.nextInt(20_000), TimeUnit.MICROSECONDS);
                    } else if (i % 3 == 1) { // at a random moment after its first reply, whatever the machine's load
                        cancelAfterFirstReply(set, random.nextInt(2_000));
                    }
                }
                for (ReplySet<String> set : sets) {
                    set.whenDone().get(30, TimeUnit.SECONDS);
                    endedByCancelOrTimeout(set);
                    afterEnd += set.arrivedAfterEnd();
                    received += set.received();
                }
            }
            System.out.println("RepliesRacingACancelTest: " + CHAINS + " chains, " + received + " replies received, "
                    + client.stats().lateFrames() + " late frames, " + afterEnd + " delivered after their set ended");
            assertEquals(0, afterEnd, "replies delivered into a set that had ended (seed " + seed + ")");
            assertTrue(received > 0, "the hops replied before the cancels");
        } finally {
            cancels.shutdownNow();
        }
    }

    /**
     * The same race at the client, in interactive mode: the chaining function runs there and its
     * replies go into the set from its own thread while the cancel ends the set from another.
     */
    @Test
    void anInteractiveChainsLocalReplyRacingACancelIsNeverDeliveredAfterTheEnd() throws Exception {
        long seed = Long.getLong("rpcc.repliesRacingACancel.seed", System.nanoTime());
        System.out.println("RepliesRacingACancelTest (interactive) seed " + seed);
        SplittableRandom random = new SplittableRandom(seed);
        ScheduledExecutorService cancels = Executors.newScheduledThreadPool(2);
        try (Cluster cluster = new Cluster()) {
            cluster.server("s1", b -> b.service("echo", p -> p));
            RpccClient client = cluster.client();
            int afterEnd = 0;
            int received = 0;
            for (int from = 0; from < CHAINS / 5; from += AT_ONCE) {
                List<ReplySet<Integer>> sets = new ArrayList<>();
                for (int i = from; i < Math.min(CHAINS / 5, from + AT_ONCE); i++) {
                    ReplySet<Integer> set = client.startChainWithReplies(ChainCall.to("s1", "echo").params("c" + i)
                            .chainingFunction(ChainingFunctionPreturnTest.REPLY_N).state(ChainState.of("n", 100_000)).interactive(true)
                            .timeout(Duration.ofSeconds(20)), Integer.class);
                    sets.add(set);
                    cancelAfterFirstReply(set, random.nextInt(2_000));
                }
                for (ReplySet<Integer> set : sets) {
                    set.whenDone().get(30, TimeUnit.SECONDS);
                    endedByCancelOrTimeout(set);
                    afterEnd += set.arrivedAfterEnd();
                    received += set.received();
                }
            }
            System.out.println("RepliesRacingACancelTest (interactive): " + CHAINS / 5 + " chains, " + received
                    + " replies received, " + afterEnd + " delivered after their set ended");
            assertEquals(0, afterEnd, "replies delivered into a set that had ended (seed " + seed + ")");
            assertTrue(received > 0, "the functions replied before the cancels");
        } finally {
            cancels.shutdownNow();
        }
    }

    /** Cancels {@code set} {@code micros} after its first reply arrived (or once it ended, if none does). */
    private static void cancelAfterFirstReply(ReplySet<?> set, long micros) {
        Thread.ofVirtual().start(() -> {
            while (set.received() == 0 && !set.isDone()) {
                LockSupport.parkNanos(50_000);
            }
            LockSupport.parkNanos(TimeUnit.MICROSECONDS.toNanos(micros));
            set.cancel();
        });
    }

    /**
     * A set ended by its cancel, its timeout (at the client, or a hop that would start past the
     * deadline) or its end: any other error fails the test, with that error (a cancelled interactive
     * chain once ended with its chaining function's failure, the preturn the cancel stopped).
     */
    private static void endedByCancelOrTimeout(ReplySet<?> set) {
        ChainException e = set.error();
        if (e != null && !(e instanceof ChainCancelledException) && !(e instanceof ChainTimeoutException)
                && !(e instanceof DeadlineExceededException)) {
            throw new AssertionError("a chain ended by neither its cancel nor its timeout: " + e, e);
        }
    }
}
