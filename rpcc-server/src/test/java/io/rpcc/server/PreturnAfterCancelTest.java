package io.rpcc.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.rpcc.client.ChainCall;
import io.rpcc.client.ReplySet;
import io.rpcc.client.RpccClient;
import io.rpcc.core.ChainCancelledException;
import io.rpcc.core.ChainContext;
import io.rpcc.core.ChainingFunctionSource;
import io.rpcc.core.testing.StressDepth;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * After a cancel, {@code preturn} throws {@link ChainCancelledException} at once whatever thread
 * calls it: the service function's, one started through the context, a foreign thread with a
 * captured context or with {@code ctx.push()}, a chaining function's. Every producer here fills its
 * reader's small buffer and waits for room when the originator cancels at a random moment (before,
 * while or after the buffer fills): its waiting {@code preturn} must end well within
 * {@link #BOUND}, far below the node's reply write timeout.
 */
public class PreturnAfterCancelTest {
    /** The node's reply write timeout: what a preturn not woken by the cancel would wait. */
    static final Duration WRITE_TIMEOUT = Duration.ofSeconds(10);
    static final long BOUND_MS = 2000;
    static final int BUFFER = 4;
    static final int MAX_REPLIES = 100_000;

    /** The threads a producer can call preturn from. */
    enum Kind { SERVICE, CONTEXT_THREAD, CAPTURED, PUSHED, CHAINING }

    /** How a producer's preturn loop ended: what its last preturn threw (null: none), when, after how many. */
    record Outcome(Throwable thrown, long endedNanos, int sent) {
    }

    static final Map<String, CompletableFuture<Outcome>> OUTCOMES = new ConcurrentHashMap<>();
    static final Set<String> STARTED = ConcurrentHashMap.newKeySet();
    /** Threads not started through any context: only a captured or pushed context reaches them. */
    static final ExecutorService FOREIGN = Executors.newCachedThreadPool(r -> {
        Thread t = new Thread(r, "foreign-producer");
        t.setDaemon(true);
        return t;
    });

    static Cluster cluster;
    static RpccServer server;
    static RpccClient client;

    /** Called by the producers (also by the chaining function, run without the sandbox). */
    public static final class Hooks {
        private Hooks() {
        }

        /** Calls {@code ctx.preturn} until it throws (or {@link #MAX_REPLIES} went out); records how it ended. */
        public static void produce(String token, ChainContext ctx) {
            STARTED.add(token);
            CompletableFuture<Outcome> out = OUTCOMES.computeIfAbsent(token, t -> new CompletableFuture<>());
            int n = 0;
            try {
                for (; n < MAX_REPLIES; n++) {
                    ctx.preturn(n);
                }
                out.complete(new Outcome(null, System.nanoTime(), n));
            } catch (Throwable e) {
                out.complete(new Outcome(e, System.nanoTime(), n));
            }
        }
    }

    /** Params "token:KIND": produces replies from the thread KIND names until preturn throws. */
    static Object flood(Object params) throws Exception {
        String[] p = ((String) params).split(":");
        String token = p[0];
        ChainContext ctx = ChainContext.current();
        CompletableFuture<Outcome> out = OUTCOMES.computeIfAbsent(token, t -> new CompletableFuture<>());
        switch (Kind.valueOf(p[1])) {
            case SERVICE -> Hooks.produce(token, ChainContext.current());
            case CONTEXT_THREAD -> ctx.startVirtualThread(() -> Hooks.produce(token, ChainContext.current()));
            case CAPTURED -> {
                FOREIGN.execute(() -> Hooks.produce(token, ctx));
                out.join(); // the hop runs on until the foreign producer ends (join ignores the cancel's interrupt)
            }
            case PUSHED -> {
                FOREIGN.execute(() -> {
                    try (var scope = ctx.push()) {
                        Hooks.produce(token, ChainContext.current());
                    }
                });
                out.join();
            }
            case CHAINING -> {
                return token; // the chaining function produces
            }
        }
        return token;
    }

    /** A Java chaining function (the node runs it without the sandbox, so that it can reach the hooks). */
    static final ChainingFunctionSource PRODUCE = ChainingFunctionSource.java("""
            import io.rpcc.core.*;
            public class Produce implements ChainingFunction {
                public NextHop apply(ChainState state, Object result) {
                    io.rpcc.server.PreturnAfterCancelTest.Hooks.produce((String) result, ChainContext.current());
                    return NextHop.end(result);
                }
            }
            """);

    @BeforeAll
    static void start() {
        cluster = new Cluster();
        server = cluster.server("p", b -> b.replyWriteTimeout(WRITE_TIMEOUT).withoutSandbox()
                .service("flood", PreturnAfterCancelTest::flood));
        client = cluster.client(b -> b.replyBufferSize(BUFFER).timeout(Duration.ofSeconds(60)));
    }

    @AfterAll
    static void stop() throws Exception {
        cluster.close();
    }

    /** One producer of each kind waits for room when its reply set is cancelled: each preturn ends at once. */
    @Test
    @Timeout(value = 2, unit = TimeUnit.MINUTES)
    void aWaitingPreturnEndsAtOnceWhenTheChainIsCancelled() throws Exception {
        for (Kind kind : Kind.values()) {
            String token = "full-" + kind;
            ReplySet<Integer> replies = start(token, kind);
            long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
            while (replies.received() < BUFFER && System.nanoTime() < until) {
                Thread.sleep(2);
            }
            assertEquals(BUFFER, replies.received(), kind + ": the unread set filled up");
            Thread.sleep(50); // the producer asked for room and waits
            long cancelled = System.nanoTime();
            replies.cancel();
            Outcome o = OUTCOMES.get(token).get(WRITE_TIMEOUT.toSeconds() + 5, TimeUnit.SECONDS);
            long tookMs = TimeUnit.NANOSECONDS.toMillis(o.endedNanos() - cancelled);
            assertInstanceOf(ChainCancelledException.class, o.thrown(), kind + ": the waiting preturn threw");
            assertTrue(tookMs < BOUND_MS, kind + ": the waiting preturn threw " + tookMs + " ms after the cancel, "
                    + "not at once");
        }
        awaitIdle();
    }

    /**
     * 200 chains in rounds of 25, each producing from a random kind of thread and cancelled at a random
     * moment (0 to 40 ms after it starts, or once its buffer is full): every producer that started
     * ends with {@link ChainCancelledException} within the bound of the cancel.
     */
    @Test
    @Timeout(value = 3, unit = TimeUnit.MINUTES)
    void cancelsAtRandomMomentsEndEveryPreturnAtOnce() throws Exception {
        long seed = StressDepth.seed(PreturnAfterCancelTest.class);
        Random random = new Random(seed);
        AtomicInteger notStarted = new AtomicInteger();
        List<String> slow = new ArrayList<>();
        for (int round = 0; round < 8; round++) {
            List<String> tokens = new ArrayList<>();
            List<Long> cancels = new ArrayList<>();
            for (int i = 0; i < 25; i++) { // each started just before its own cancel; the earlier ones still end
                Kind kind = Kind.values()[random.nextInt(Kind.values().length)];
                String token = "r" + round + "-" + i + "-" + kind;
                tokens.add(token);
                ReplySet<Integer> set = start(token, kind);
                int wait = random.nextInt(50);
                if (wait >= 40) {
                    long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
                    while (set.received() < BUFFER && System.nanoTime() < until) {
                        Thread.sleep(1);
                    }
                } else if (wait > 0) {
                    Thread.sleep(wait);
                }
                cancels.add(System.nanoTime());
                set.cancel();
            }
            for (int i = 0; i < tokens.size(); i++) {
                String token = tokens.get(i);
                CompletableFuture<Outcome> out = OUTCOMES.get(token);
                long until = cancels.get(i) + TimeUnit.MILLISECONDS.toNanos(BOUND_MS + 3000);
                while (!out.isDone() && System.nanoTime() < until
                        && (STARTED.contains(token) || System.nanoTime() - cancels.get(i) < TimeUnit.SECONDS.toNanos(1))) {
                    Thread.sleep(1);
                }
                if (!out.isDone()) {
                    if (STARTED.contains(token)) {
                        slow.add(token + " still in preturn " + (BOUND_MS + 3000) + " ms after its cancel");
                    } else {
                        notStarted.incrementAndGet(); // cancelled before the hop started: no preturn ran
                    }
                    continue;
                }
                Outcome o = out.join();
                long tookMs = TimeUnit.NANOSECONDS.toMillis(o.endedNanos() - cancels.get(i));
                assertInstanceOf(ChainCancelledException.class, o.thrown(), token + " (seed " + seed + ") after "
                        + o.sent() + " replies");
                if (tookMs >= BOUND_MS) {
                    slow.add(token + " threw " + tookMs + " ms after its cancel");
                }
            }
        }
        assertTrue(slow.isEmpty(), "seed " + seed + ": " + slow.size() + " preturns did not end at once after the "
                + "cancel, e.g. " + slow.subList(0, Math.min(10, slow.size())));
        System.out.printf("200 cancelled producers, %d cancelled before their hop started (seed %d)%n",
                notStarted.get(), seed);
        awaitIdle();
    }

    private static ReplySet<Integer> start(String token, Kind kind) {
        OUTCOMES.computeIfAbsent(token, t -> new CompletableFuture<>());
        ChainCall call = ChainCall.to("p", "flood").params(token + ":" + kind);
        if (kind == Kind.CHAINING) {
            call = call.chainingFunction(PRODUCE);
        }
        return client.startChainWithReplies(call, Integer.class);
    }

    /** Nothing of the cancelled chains stays at the server. */
    private static void awaitIdle() throws InterruptedException {
        long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        int idle = 0; // 10 checks in a row: a request sent just before its cancel may still be on its way
        while (idle < 10 && System.nanoTime() < until) {
            idle = server.hopsInFlight() > 0 || server.replyStreams() > 0 ? 0 : idle + 1;
            Thread.sleep(10);
        }
        assertEquals(0, server.hopsInFlight(), "hops still running");
        assertEquals(0, server.replyStreams(), "reply streams still open");
        assertFalse(OUTCOMES.isEmpty());
    }
}
