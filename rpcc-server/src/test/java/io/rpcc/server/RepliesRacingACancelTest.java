package io.rpcc.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.rpcc.client.ChainCall;
import io.rpcc.client.ReplySet;
import io.rpcc.client.RpccClient;
import io.rpcc.core.ChainContext;
import io.rpcc.core.StaticRoute;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * A cancel (or a timeout) ends a reply set on another thread than the event loops on which its
 * replies are still arriving: whatever was on its way when the set ended is dropped as late, and
 * none is delivered into the ended set. Thousands of 2-hop chains whose hops flood replies from two
 * threads each, cancelled at random moments, or (a third of them) given a timeout of a few
 * milliseconds (the seed is printed; {@code -Drpcc.repliesRacingACancel.seed} replays the times).
 */
class RepliesRacingACancelTest {
    private static final int CHAINS = Integer.getInteger("rpcc.repliesRacingACancel.chains", 3000);
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
                    if (!timesOut) {
                        cancels.schedule(set::cancel, random.nextInt(20_000), TimeUnit.MICROSECONDS);
                    }
                }
                for (ReplySet<String> set : sets) {
                    set.whenDone().get(30, TimeUnit.SECONDS);
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
}
