package io.rpcc.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.rpcc.client.ChainCall;
import io.rpcc.client.Heartbeats;
import io.rpcc.client.RetryPolicy;
import io.rpcc.client.RpccClient;
import io.rpcc.core.BrokenChainException;
import io.rpcc.core.ChainResult;
import io.rpcc.core.StaticRoute;
import java.time.Duration;
import io.rpcc.core.ChainContext;
import io.rpcc.client.ReplySet;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Heartbeats, idempotent retry and diagnosis together, on real nodes (paper 3.9: broken, sent
 * again, broken again, diagnosed): a 3-hop chain whose third node goes silent mid-hop is detected
 * by its heartbeats and sent again; if the node comes back, the retry catches up with the hop's
 * first run there (waiting for it, heartbeating under its own attempt while the first run's
 * heartbeats are dropped) and completes with the right result, hops 1 and 2 replayed from the
 * servers' outcome caches; if it never comes back, the retry breaks too, the diagnosis runs as one
 * more attempt (replaying hops 1 and 2 again) and the call fails with a {@link BrokenChainException}
 * naming hop 3 and its host. Hops 1 and 2 run once either way.
 */
@Timeout(value = 2, unit = TimeUnit.MINUTES)
class BrokenChainRecoveryTest {
    static final Duration INTERVAL = Duration.ofMillis(300);
    static final Duration BROKEN_AFTER = Duration.ofSeconds(1);
    static final StaticRoute ROUTE = StaticRoute.of(StaticRoute.hop("s1", "inc"), StaticRoute.hop("s2", "inc"),
            StaticRoute.hop("s3", "last"));

    Cluster cluster;
    RpccClient client;
    final Blackout blackout3 = new Blackout();
    final AtomicInteger runs1 = new AtomicInteger();
    final AtomicInteger runs2 = new AtomicInteger();
    final AtomicInteger runs3 = new AtomicInteger();
    final CountDownLatch entered3 = new CountDownLatch(1);
    final CountDownLatch release3 = new CountDownLatch(1);

    @BeforeEach
    void start() {
        cluster = new Cluster();
        cluster.server("s1", b -> b.service("inc", p -> {
            runs1.incrementAndGet();
            ChainContext.current().preturn("r1 of " + p);
            return (Integer) p + 1;
        }));
        cluster.server("s2", b -> b.service("inc", p -> {
            runs2.incrementAndGet();
            ChainContext.current().preturn("r2 of " + p);
            return (Integer) p + 1;
        }));
        cluster.server("s3", b -> b.pipelineCustomizer(blackout3.customizer()).service("last", p -> {
            runs3.incrementAndGet();
            entered3.countDown();
            release3.await(60, TimeUnit.SECONDS); // the hop the node goes silent under
            return (Integer) p + 100;
        }));
        client = cluster.client(b -> b.heartbeats(Heartbeats.every(INTERVAL, BROKEN_AFTER))
                .timeout(Duration.ofSeconds(60)));
    }

    @AfterEach
    void stop() throws Exception {
        blackout3.heal();
        release3.countDown();
        cluster.close();
    }

    private static void await(BooleanSupplier condition, long timeoutMs, String what) throws InterruptedException {
        long end = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(timeoutMs);
        while (!condition.getAsBoolean()) {
            assertTrue(System.nanoTime() < end, "never happened: " + what);
            Thread.sleep(10);
        }
    }

    @Test
    void aNodeThatComesBackBeforeTheRetryLetsTheRetryCompleteWithHops1And2RunOnce() throws Exception {
        // a backoff long enough for the test to bring s3 back after the break is detected
        CompletableFuture<ChainResult> f = client.startChain(ChainCall.along(ROUTE, 1)
                .retry(RetryPolicy.attempts(2).backoff(Duration.ofMillis(1_500), Duration.ofMillis(1_500), 1).jitter(0)));
        assertTrue(entered3.await(30, TimeUnit.SECONDS));
        blackout3.cut(); // s3 freezes mid-hop: its links hold everything, nothing is closed
        await(() -> client.brokenChains() == 1, 20_000, "attempt 1 declared broken");
        blackout3.heal(); // s3 is back before the retry; its hop of attempt 1 still runs
        await(() -> client.stats().retries() == 1, 20_000, "attempt 2 sent");
        // attempt 2 replays hops 1 and 2 and waits at s3 for the hop's first run, for more than the
        // broken-after time: its own heartbeats keep it alive, attempt 1's are dropped
        await(() -> client.stats().earlierAttemptFrames() >= 2, 20_000, "attempt 1's heartbeats dropped");
        Thread.sleep(2 * BROKEN_AFTER.toMillis());
        assertEquals(1, client.brokenChains(), "the waiting retry heartbeats under its own attempt");
        assertFalse(f.isDone(), "still waiting for the first run at s3");
        release3.countDown();
        ChainResult r = f.get(30, TimeUnit.SECONDS);
        assertEquals(103, r.value());
        assertEquals(List.of("s1", "s2", "s3"), r.path());
        assertEquals(1, runs1.get(), "hop 1 replayed from s1's outcome cache");
        assertEquals(1, runs2.get(), "hop 2 replayed from s2's outcome cache");
        assertEquals(1, runs3.get(), "the retry at s3 waited for the first run and replayed it");
        assertEquals(1, client.brokenChains(), "no diagnosis");
    }

    @Test
    void aNodeThatNeverComesBackBreaksTheRetryTooAndTheDiagnosisNamesHop3AndItsHost() throws Exception {
        CompletableFuture<ChainResult> f = client.startChain(ChainCall.along(ROUTE, 1)
                .retry(RetryPolicy.attempts(2).backoff(Duration.ofMillis(100), Duration.ofMillis(100), 1)));
        assertTrue(entered3.await(30, TimeUnit.SECONDS));
        blackout3.cut(); // frozen for good
        ExecutionException e = assertThrows(ExecutionException.class, () -> f.get(60, TimeUnit.SECONDS));
        BrokenChainException broken = assertInstanceOf(BrokenChainException.class, e.getCause());
        assertEquals(3, broken.hop(), broken.getMessage());
        assertEquals("s3", broken.host());
        assertEquals("last", broken.serviceFunction());
        assertEquals(List.of("s1", "s2", "s3"), broken.path());
        assertTrue(broken.getMessage().contains("step by step") && broken.getMessage().contains("hop 3"),
                broken.getMessage());
        assertTrue(broken.isRetryable());
        assertEquals(1, client.stats().retries(), "sent again once before the diagnosis");
        assertEquals(3, client.brokenChains(), "attempt 1, attempt 2, then the diagnosis's silent step at s3");
        assertEquals(1, runs1.get(), "hop 1 ran once: the retry and the diagnosis replayed it");
        assertEquals(1, runs2.get(), "hop 2 ran once: the retry and the diagnosis replayed it");
        assertEquals(1, runs3.get(), "the frozen node ran its hop once");
    }

    @Test
    void aBrokenChainWithADataStreamIsNotRunAgainStepByStepAndFailsWithTheBreakItself() throws Exception {
        // a stream is read once: the diagnosis, which would send the chain again, cannot; the call fails with the break
        CompletableFuture<ChainResult> f = client.startChain(ChainCall.to("s3", "last").params(1)
                .stream(new java.io.ByteArrayInputStream(new byte[1000])));
        assertTrue(entered3.await(30, TimeUnit.SECONDS));
        blackout3.cut();
        ExecutionException e = assertThrows(ExecutionException.class, () -> f.get(60, TimeUnit.SECONDS));
        BrokenChainException broken = assertInstanceOf(BrokenChainException.class, e.getCause(), String.valueOf(e.getCause()));
        assertTrue(broken.getMessage().contains("Its data stream was read once, so the chain was not run again step by step")
                && !broken.getMessage().contains("the broken chain, run again step by step"), broken.getMessage());
        assertEquals("s3", broken.host(), broken.getMessage());
        assertEquals(1, client.brokenChains(), "no diagnosis");
        assertEquals(1, runs3.get());
    }

    @Test
    void aChainWithRepliesIsDiagnosedTooAndDeliversEachReplyOnce() throws Exception {
        ReplySet<String> replies = client.startChainWithReplies(ChainCall.along(ROUTE, 1)
                .retry(RetryPolicy.attempts(2).backoff(Duration.ofMillis(100), Duration.ofMillis(100), 1)), String.class);
        assertTrue(entered3.await(30, TimeUnit.SECONDS));
        blackout3.cut(); // frozen for good
        List<String> got = new ArrayList<>();
        replies.forEach(got::add);
        ExecutionException e = assertThrows(ExecutionException.class, () -> replies.result().get(60, TimeUnit.SECONDS));
        BrokenChainException broken = assertInstanceOf(BrokenChainException.class, e.getCause());
        assertEquals(3, broken.hop(), broken.getMessage());
        assertEquals("s3", broken.host());
        assertTrue(broken.getMessage().contains("step by step"), broken.getMessage());
        assertTrue(replies.isPartial());
        assertInstanceOf(BrokenChainException.class, replies.error());
        assertEquals(List.of("r1 of 1", "r2 of 2"), got,
                "each reply once: the retry and the diagnosis replayed hops 1 and 2 and sent their replies again");
        assertEquals(4, client.stats().repliesSentAgain(), "r1 and r2 again, by the retry and by the diagnosis");
        assertEquals(3, client.brokenChains(), "attempt 1, attempt 2, then the diagnosis's silent step at s3");
        assertEquals(1, runs1.get());
        assertEquals(1, runs2.get());
        assertEquals(0, replies.arrivedAfterEnd());
    }
}
