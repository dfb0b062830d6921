package io.rpcc.server.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.rpcc.core.internal.chain.ReplyWindow;
import io.rpcc.core.internal.wire.ChainSecret;
import io.rpcc.core.internal.wire.ReplyStream;
import io.rpcc.core.testing.StressDepth;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;
import org.junit.jupiter.api.Test;

/**
 * Reply flow control between a node's {@link ReplyStreams} and an originator's {@link ReplyWindow},
 * both real, over a modelled connection (one FIFO each way, as a TCP connection is), under thousands
 * of randomized interleavings: hops of the same number at the same node (branches of a split) open,
 * share, end and reopen one stream at random moments from many threads, each sending a random
 * number of replies of random sizes; the originator's reader takes each reply as it arrives. Every
 * reply gets room (none waits for a grant that never comes), and when all is done the originator
 * holds no room for any stream and the node has no stream left.
 */
class ReplyStreamsStressTest {
    static final int ROUNDS = StressDepth.size(3_000, 10_000);
    static final int HOPS_PER_ROUND = 4;

    private final ReplyStreams streams = new ReplyStreams();
    private final ReplyWindow window = new ReplyWindow(64, 256 * 1024);
    private final ChainSecret secret = ChainSecret.random();
    private final Object connection = new Object();
    /** Frames from the node to the originator, in order. */
    private final ExecutorService toOriginator = Executors.newSingleThreadExecutor();
    /** Frames from the originator to the node, in order. */
    private final ExecutorService toNode = Executors.newSingleThreadExecutor();
    private final AtomicLong replies = new AtomicLong();
    private final AtomicLong givenBackToOriginator = new AtomicLong();

    @Test
    void everyReplyGetsRoomAndNothingIsHeldAtTheEnd() throws Exception {
        ExecutorService hops = Executors.newFixedThreadPool(8);
        ConcurrentLinkedQueue<String> problems = new ConcurrentLinkedQueue<>();
        try {
            for (int round = 0; round < ROUNDS; round++) {
                long chain = round / 10 + 1; // ten rounds per chain: streams of a chain reopen often
                int hop = round % 3 + 1;
                CountDownLatch done = new CountDownLatch(HOPS_PER_ROUND);
                Random r = new Random(round);
                for (int i = 0; i < HOPS_PER_ROUND; i++) {
                    long seed = r.nextLong();
                    hops.execute(() -> {
                        try {
                            runHop(chain, hop, new Random(seed), problems);
                        } catch (Throwable e) {
                            problems.add("round " + chain + "/" + hop + ": " + e);
                        } finally {
                            done.countDown();
                        }
                    });
                }
                assertTrue(done.await(30, TimeUnit.SECONDS), "round " + round + " ended");
                assertEquals(List.of(), new ArrayList<>(problems).subList(0, Math.min(5, problems.size())));
            }
            // let every frame on its way arrive
            for (int i = 0; i < 3; i++) {
                toOriginator.submit(() -> { }).get(10, TimeUnit.SECONDS);
                toNode.submit(() -> { }).get(10, TimeUnit.SECONDS);
            }
            assertEquals(0, streams.size(), "streams left at the node");
            assertEquals(0, window.streams(), "streams the originator still holds room for");
            assertEquals(0, window.bufferedReplies());
            assertTrue(replies.get() > ROUNDS, "replies: " + replies.get());
            assertTrue(givenBackToOriginator.get() > 0, "streams gave room back: " + givenBackToOriginator.get());
        } finally {
            hops.shutdownNow();
            toOriginator.shutdownNow();
            toNode.shutdownNow();
        }
    }

    /** One hop: opens the stream, sends 0 to 12 replies (some after a pause), ends it. */
    private void runHop(long chain, int hop, Random r, ConcurrentLinkedQueue<String> problems) throws Exception {
        if (r.nextBoolean()) {
            LockSupport.parkNanos(r.nextInt(200_000));
        }
        SendWindow w = streams.open(chain, secret, hop, "w3");
        int n = r.nextInt(13);
        for (int i = 0; i < n; i++) {
            long size = 100 + r.nextInt(r.nextInt(10) == 0 ? 60_000 : 2_000);
            boolean got = w.acquire(size, Duration.ofSeconds(10), (give, bytes, want) -> toOriginator.execute(() ->
                            window.update(chain, new ReplyStream(hop, "w3"), connection, give, bytes, want,
                                    grantFromOriginator.bind(chain, hop))),
                    () -> toOriginator.execute(() -> {
                        window.arrived(chain, new ReplyStream(hop, "w3"), connection, size);
                        window.consumed(size); // the reader takes it at once
                        replies.incrementAndGet();
                    }));
            if (!got) {
                problems.add("chain " + chain + " hop " + hop + ": no room within 10 s for reply " + i + " of " + size
                        + " bytes");
                break;
            }
            if (r.nextInt(4) == 0) {
                Thread.yield();
            }
        }
        streams.release(chain, secret, hop, "w3", w, (give, bytes, want) -> toOriginator.execute(() -> {
            givenBackToOriginator.incrementAndGet();
            window.update(chain, new ReplyStream(hop, "w3"), connection, give, bytes, 0, (x, y) -> { });
        }));
    }

    /** A grant on its way to the node; if its stream has ended there, the node gives it back. */
    private interface GrantTo {
        void grant(long chain, int hop, int replies, long bytes);

        default ReplyWindow.Granter bind(long chain, int hop) {
            return (replies, bytes) -> grant(chain, hop, replies, bytes);
        }
    }

    private final GrantTo grantFromOriginator = (chain, hop, replies, bytes) -> toNode.execute(() -> {
        if (!streams.grant(chain, secret, hop, "w3", replies, bytes)) {
            toOriginator.execute(() -> window.update(chain, new ReplyStream(hop, "w3"), connection, replies, bytes, 0,
                    (x, y) -> { }));
        }
    });
}
