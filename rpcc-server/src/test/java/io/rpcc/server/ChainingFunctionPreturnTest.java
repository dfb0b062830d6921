package io.rpcc.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.rpcc.client.ChainCall;
import io.rpcc.client.ReplySet;
import io.rpcc.client.RpccClient;
import io.rpcc.core.ChainCancelledException;
import io.rpcc.core.ChainState;
import io.rpcc.core.ChainingFunctionSource;
import io.rpcc.core.Refusal;
import io.rpcc.core.SandboxLimits;
import io.rpcc.core.SandboxViolationException;
import io.rpcc.core.testing.StressDepth;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A sandboxed chaining function's {@code preturn} behaves as a service function's: against a slow
 * reader it waits for room (its wall time does not run meanwhile, up to the reply write timeout),
 * and after a cancel it throws {@code ChainCancelledException} at once, so the chain ends as
 * cancelled, not as a sandbox violation with an abandoned thread.
 */
class ChainingFunctionPreturnTest {
    static final Duration WALL = Duration.ofMillis(500);
    static final int BUFFER = 2;
    static Cluster cluster;
    static RpccServer cf;
    static RpccServer strict;
    static RpccClient client;

    /** Replies {@code state.n} numbers, then ends the chain with "done". */
    static final ChainingFunctionSource REPLY_N = ChainingFunctionSource.java("""
            import io.rpcc.core.*;
            public class ReplyN implements ChainingFunction {
                public NextHop apply(ChainState state, Object result) {
                    int n = state.get("n", Integer.class);
                    for (int i = 0; i < n; i++) {
                        ChainContext.current().preturn(i);
                    }
                    return NextHop.end("done");
                }
            }
            """);

    /** Keeps replying, retrying a preturn that timed out, until the sandbox stops it. */
    static final ChainingFunctionSource INSIST = ChainingFunctionSource.java("""
            import io.rpcc.core.*;
            public class Insist implements ChainingFunction {
                public NextHop apply(ChainState state, Object result) {
                    for (int i = 0; ; i++) {
                        try {
                            ChainContext.current().preturn(i);
                        } catch (FlowControlException e) {
                            // the reader does not read: try again
                        }
                    }
                }
            }
            """);

    @BeforeAll
    static void start() {
        cluster = new Cluster();
        cf = cluster.server("cf", b -> b.sandbox(new SandboxLimits(Duration.ofMillis(300), 32L << 20, WALL))
                .service("echo", x -> x));
        strict = cluster.server("strict", b -> b.sandbox(new SandboxLimits(Duration.ofMillis(300), 32L << 20, WALL))
                .replyWriteTimeout(Duration.ofMillis(700)).service("echo", x -> x));
        client = cluster.client(b -> b.replyBufferSize(BUFFER).timeout(Duration.ofSeconds(60)));
    }

    @AfterAll
    static void stop() throws Exception {
        cluster.close();
    }

    /**
     * 12 replies to a reader that takes one every 100 ms: the function waits about a second for room,
     * twice its wall time, and the chain still ends with its result (the first call runs the function
     * from a virtual thread, the second on a platform thread: the two ways the sandbox runs it).
     */
    @Test
    @Timeout(value = 1, unit = TimeUnit.MINUTES)
    void aSlowReaderMakesTheChainingFunctionsPreturnWaitNotViolateItsWallTime() throws Exception {
        for (int run = 0; run < 2; run++) {
            ReplySet<Integer> replies = client.startChainWithReplies(ChainCall.to("cf", "echo").params("x")
                    .chainingFunction(REPLY_N).state(ChainState.of("n", 12)), Integer.class);
            List<Integer> got = new ArrayList<>();
            long start = System.nanoTime();
            while (replies.hasMore()) {
                Thread.sleep(100);
                got.add(replies.next());
            }
            long tookMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
            assertFalse(replies.isPartial(), () -> "run " + replies.error());
            assertEquals("done", replies.result().get().value());
            assertEquals(12, got.size());
            assertTrue(tookMs > WALL.toMillis(), "the reader was slower than the wall time: " + tookMs + " ms");
        }
        assertEquals(0, cf.stats().refused(Refusal.SANDBOX_VIOLATION));
        assertEquals(0, cf.stats().abandonedSandboxThreads());
    }

    /**
     * In interactive mode the function runs at the client, whose preturn waits for room in the set
     * itself: the same slow reader, the same outcome. A cancel while it waits ends the set at once.
     */
    @Test
    @Timeout(value = 1, unit = TimeUnit.MINUTES)
    void anInteractiveChainingFunctionWaitsForASlowReaderToo() throws Exception {
        RpccClient interactive = cluster.client(b -> b.replyBufferSize(BUFFER).timeout(Duration.ofSeconds(60))
                .sandbox(new SandboxLimits(Duration.ofMillis(300), 32L << 20, WALL)));
        ReplySet<Integer> replies = interactive.startChainWithReplies(ChainCall.to("cf", "echo").params("x")
                .chainingFunction(REPLY_N).state(ChainState.of("n", 12)).interactive(true), Integer.class);
        List<Integer> got = new ArrayList<>();
        long start = System.nanoTime();
        while (replies.hasMore()) {
            Thread.sleep(100);
            got.add(replies.next());
        }
        long tookMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
        assertFalse(replies.isPartial(), () -> "ended with " + replies.error());
        assertEquals("done", replies.result().get().value());
        assertEquals(12, got.size());
        assertTrue(tookMs > WALL.toMillis(), "the reader was slower than the wall time: " + tookMs + " ms");

        ReplySet<Integer> cancelled = interactive.startChainWithReplies(ChainCall.to("cf", "echo").params("x")
                .chainingFunction(REPLY_N).state(ChainState.of("n", 1_000_000)).interactive(true), Integer.class);
        long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
        while (cancelled.received() < BUFFER && System.nanoTime() < until) {
            Thread.sleep(1);
        }
        assertTrue(cancelled.cancel());
        assertInstanceOf(ChainCancelledException.class, cancelled.error());
    }

    /**
     * The time a function spends waiting for its reader is excused up to the reply write timeout in
     * all: one that keeps retrying against a reader that never reads still ends, with rule
     * {@code wall-time}, once its wall time and that timeout are spent.
     */
    @Test
    @Timeout(value = 1, unit = TimeUnit.MINUTES)
    void waitingForTheReaderIsExcusedOnlyUpToTheWriteTimeout() throws Exception {
        long start = System.nanoTime();
        ReplySet<Integer> replies = client.startChainWithReplies(ChainCall.to("strict", "echo").params("x")
                .chainingFunction(INSIST).state(ChainState.empty()), Integer.class);
        ExecutionException e = org.junit.jupiter.api.Assertions.assertThrows(ExecutionException.class,
                () -> replies.result().get(20, TimeUnit.SECONDS));
        long tookMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
        SandboxViolationException v = assertInstanceOf(SandboxViolationException.class, e.getCause());
        assertEquals("wall-time", v.rule());
        assertTrue(tookMs < 10_000, "ended after " + tookMs + " ms, about its wall time plus one write timeout");
        replies.cancel();
    }

    /**
     * 60 chains whose function replies to a reader that reads nothing, cancelled at random moments
     * (0 to 40 ms after they start, or once the buffer is full): each hop ends within 2 s of its
     * cancel, with no sandbox violation and no abandoned thread. The wall time here is 5 s: a
     * {@code preturn} not woken by the cancel would hold its hop until the watchdog abandons it.
     */
    @Test
    @Timeout(value = 2, unit = TimeUnit.MINUTES)
    void cancelledChainingFunctionsEndAsCancelled() throws Exception {
        try (Cluster own = new Cluster()) {
            RpccServer node = own.server("slow-wall", b -> b.sandbox(new SandboxLimits(Duration.ofMillis(300),
                    32L << 20, Duration.ofSeconds(5))).service("echo", x -> x));
            RpccClient reader = own.client(b -> b.replyBufferSize(BUFFER).timeout(Duration.ofSeconds(60)));
            long seed = StressDepth.seed(ChainingFunctionPreturnTest.class);
            Random random = new Random(seed);
            for (int round = 0; round < 6; round++) {
                long lastCancel = 0;
                for (int i = 0; i < 10; i++) {
                    ReplySet<Integer> replies = reader.startChainWithReplies(ChainCall.to("slow-wall", "echo")
                            .params("x").chainingFunction(REPLY_N).state(ChainState.of("n", 1_000_000)), Integer.class);
                    int wait = random.nextInt(50);
                    if (wait >= 40) {
                        long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
                        while (replies.received() < BUFFER && System.nanoTime() < until) {
                            Thread.sleep(1);
                        }
                    } else if (wait > 0) {
                        Thread.sleep(wait);
                    }
                    lastCancel = System.nanoTime();
                    replies.cancel();
                }
                // idle for 50 ms in a row: a request sent just before its cancel may still be on its way
                long until = lastCancel + TimeUnit.SECONDS.toNanos(10);
                long idleSince = 0;
                while (System.nanoTime() < until) {
                    if (node.hopsInFlight() > 0) {
                        idleSince = 0;
                    } else if (idleSince == 0) {
                        idleSince = System.nanoTime();
                    } else if (System.nanoTime() - idleSince > TimeUnit.MILLISECONDS.toNanos(50)) {
                        break;
                    }
                    Thread.sleep(2);
                }
                assertTrue(idleSince != 0, "seed " + seed + ": hops still running 10 s after the last cancel");
                long tookMs = TimeUnit.NANOSECONDS.toMillis(idleSince - lastCancel);
                assertTrue(tookMs < 2000, "seed " + seed + ": the cancelled hops ended " + tookMs + " ms after the "
                        + "last cancel");
                assertEquals(0, node.stats().refused(Refusal.SANDBOX_VIOLATION), "seed " + seed
                        + ": sandbox violations for cancelled chains");
                assertEquals(0, node.stats().abandonedSandboxThreads(), "seed " + seed);
            }
        }
    }
}
