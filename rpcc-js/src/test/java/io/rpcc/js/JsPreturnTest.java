package io.rpcc.js;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.rpcc.client.ChainCall;
import io.rpcc.client.ReplySet;
import io.rpcc.client.RpccClient;
import io.rpcc.core.ChainState;
import io.rpcc.core.ChainingFunctionSource;
import io.rpcc.core.Refusal;
import io.rpcc.core.SandboxLimits;
import io.rpcc.core.StaticNameResolver;
import io.rpcc.core.testing.StressDepth;
import io.rpcc.server.RpccServer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A JavaScript chaining function's {@code rpcc.preturn} goes the way a service function's does:
 * against a slow reader it waits for room without its wall time running, and after a cancel it
 * throws at once, so the chain ends as cancelled rather than as a sandbox violation.
 */
class JsPreturnTest {
    static final Duration WALL = Duration.ofMillis(500);
    static final int BUFFER = 2;

    static final ChainingFunctionSource REPLY_N = ChainingFunctionSource.javascript("""
            (state, result) => {
                for (let i = 0; i < state.n; i++) rpcc.preturn(i);
                return rpcc.end('done');
            }
            """);

    private record Nodes(StaticNameResolver names, RpccServer server, RpccClient client) implements AutoCloseable {
        static Nodes start(String name) {
            StaticNameResolver names = new StaticNameResolver();
            RpccServer server = RpccServer.builder(name).resolver(names)
                    .sandbox(new SandboxLimits(Duration.ofMillis(300), 32L << 20, WALL))
                    .service("echo", x -> x).build().start();
            names.register(name, server.address());
            RpccClient client = RpccClient.builder().resolver(names).replyBufferSize(BUFFER)
                    .timeout(Duration.ofSeconds(60)).build().start();
            return new Nodes(names, server, client);
        }

        @Override
        public void close() {
            client.close();
            server.close();
        }
    }

    /** 10 replies to a reader that takes one every 100 ms: twice the wall time waiting for room, and no violation. */
    @Test
    @Timeout(value = 1, unit = TimeUnit.MINUTES)
    void aSlowReaderMakesPreturnWaitNotViolateTheWallTime() throws Exception {
        try (Nodes n = Nodes.start("js-slow")) {
            ReplySet<Integer> replies = n.client().startChainWithReplies(ChainCall.to("js-slow", "echo").params("x")
                    .chainingFunction(REPLY_N).state(ChainState.of("n", 10)), Integer.class);
            List<Integer> got = new ArrayList<>();
            long start = System.nanoTime();
            while (replies.hasMore()) {
                Thread.sleep(100);
                got.add(replies.next());
            }
            long tookMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
            assertFalse(replies.isPartial(), () -> "ended with " + replies.error());
            assertEquals("done", replies.result().get().value());
            assertEquals(10, got.size());
            assertTrue(tookMs > WALL.toMillis(), "the reader was slower than the wall time: " + tookMs + " ms");
            assertEquals(0, n.server().stats().refused(Refusal.SANDBOX_VIOLATION));
        }
    }

    /**
     * 20 chains whose function waits for room when they are cancelled at random moments: no
     * sandbox violation, and the server's hops have all ended (its graceful shutdown does not wait)
     * well within 2 s of the last cancel.
     */
    @Test
    @Timeout(value = 1, unit = TimeUnit.MINUTES)
    void aCancelEndsAWaitingPreturnAtOnce() throws Exception {
        long seed = StressDepth.seed(JsPreturnTest.class);
        Random random = new Random(seed);
        try (Nodes n = Nodes.start("js-cancel")) {
            long lastCancel = 0;
            for (int i = 0; i < 20; i++) {
                ReplySet<Integer> replies = n.client().startChainWithReplies(ChainCall.to("js-cancel", "echo")
                        .params("x").chainingFunction(REPLY_N).state(ChainState.of("n", 1_000_000)), Integer.class);
                int wait = random.nextInt(50);
                if (wait >= 30) {
                    long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
                    while (replies.received() < BUFFER && System.nanoTime() < until) {
                        Thread.sleep(1);
                    }
                } else {
                    Thread.sleep(wait);
                }
                lastCancel = System.nanoTime();
                replies.cancel();
            }
            n.server().shutdown(Duration.ofSeconds(10)); // returns once no hop runs
            long tookMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - lastCancel);
            assertTrue(tookMs < 2000, "seed " + seed + ": the cancelled hops ended " + tookMs + " ms after the last cancel");
            assertEquals(0, n.server().stats().refused(Refusal.SANDBOX_VIOLATION), "seed " + seed);
        }
    }
}
