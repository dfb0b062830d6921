package io.rpcc.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.rpcc.client.ChainCall;
import io.rpcc.client.ReplySet;
import io.rpcc.client.RetryPolicy;
import io.rpcc.client.RetryThrottle;
import io.rpcc.client.RpccClient;
import io.rpcc.core.ChainContext;
import io.rpcc.core.ChainException;
import io.rpcc.core.ChainResult;
import io.rpcc.core.HopUnreachableException;
import io.rpcc.core.NameResolver;
import io.rpcc.core.NodeClosedException;
import io.rpcc.core.StaticNameResolver;
import io.rpcc.core.StaticRoute;
import io.rpcc.core.ChainState;
import io.rpcc.core.internal.wire.ChainRequest;
import io.rpcc.core.internal.wire.ChainResultFrame;
import io.rpcc.core.internal.wire.ChainSecret;
import io.rpcc.core.testing.RawPeer;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.LockSupport;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Idempotent retry (paper 3.9) on real nodes: a chain sent again with the same id and secret replays
 * the outcomes its servers kept of the hops that ran, so their side effects run once; the cache's
 * bounds; idempotent service functions; the retry budget; late frames of an earlier attempt.
 */
class IdempotentRetryTest {
    private static final Duration WAIT = Duration.ofSeconds(20);
    private final List<AutoCloseable> nodes = new ArrayList<>();
    private final StaticNameResolver names = new StaticNameResolver();
    private final List<CountDownLatch> toOpen = new ArrayList<>();

    @AfterEach
    void close() throws Exception {
        toOpen.forEach(CountDownLatch::countDown);
        for (AutoCloseable n : nodes.reversed()) {
            n.close();
        }
    }

    private RpccServer server(String name, NameResolver resolver, int port,
                              java.util.function.UnaryOperator<RpccServer.Builder> config) {
        RpccServer s = startOn(port, () -> config.apply(RpccServer.builder(name).resolver(resolver)
                .listen("127.0.0.1", port)).build().start());
        names.register(name, s.address());
        nodes.add(s);
        return s;
    }

    /**
     * Starts a server; on a given port (a server restarted where a closed one listened), tries again
     * for a while if the port is taken: the kernel may have lent the freed port to a connection
     * opened meanwhile as its local port.
     */
    private static RpccServer startOn(int port, java.util.function.Supplier<RpccServer> start) {
        long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (true) {
            try {
                return start.get();
            } catch (RuntimeException e) {
                boolean taken = false;
                for (Throwable t = e; t != null; t = t.getCause()) {
                    taken |= t instanceof java.net.BindException;
                }
                if (port == 0 || !taken || System.nanoTime() > end) {
                    throw e;
                }
                LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(50));
            }
        }
    }

    private RpccServer server(String name, java.util.function.UnaryOperator<RpccServer.Builder> config) {
        return server(name, names, 0, config);
    }

    private RpccClient client(java.util.function.UnaryOperator<RpccClient.Builder> config) {
        RpccClient c = config.apply(RpccClient.builder().resolver(names).timeout(WAIT)).build().start();
        nodes.add(c);
        return c;
    }

    /** A port nothing listens on (now). */
    private static int freePort() throws IOException {
        try (ServerSocket s = new ServerSocket(0)) {
            return s.getLocalPort();
        }
    }

    private static void await(CountDownLatch latch) {
        try {
            if (!latch.await(WAIT.toSeconds(), TimeUnit.SECONDS)) {
                throw new IllegalStateException("latch never opened");
            }
        } catch (InterruptedException e) {
            throw new IllegalStateException("interrupted", e);
        }
    }

    private static void eventually(BooleanSupplier condition, String what) throws InterruptedException {
        long end = System.nanoTime() + WAIT.toNanos();
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() > end) {
                throw new AssertionError("never happened: " + what);
            }
            Thread.sleep(10);
        }
    }

    private static ChainException failure(CompletableFuture<?> f) {
        CompletionException e = assertThrows(CompletionException.class, f::join);
        return assertInstanceOf(ChainException.class, e.getCause());
    }

    private static final StaticRoute ROUTE = StaticRoute.of(StaticRoute.hop("s1", "inc"), StaticRoute.hop("s2", "inc"),
            StaticRoute.hop("s3", "last"));

    /** A service function that counts its runs and adds one. */
    private static io.rpcc.core.ServiceFunction counting(AtomicInteger runs) {
        return p -> {
            runs.incrementAndGet();
            return (Integer) p + 1;
        };
    }

    @Test
    void aChainWhoseThirdNodeIsKilledMidHopIsRetriedAndTheFirstTwoHopsRunOnce() throws Exception {
        AtomicInteger runs1 = new AtomicInteger();
        AtomicInteger runs2 = new AtomicInteger();
        AtomicInteger runs3 = new AtomicInteger();
        AtomicInteger runs3Again = new AtomicInteger();
        CountDownLatch entered = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        toOpen.add(release);
        RpccServer s1 = server("s1", b -> b.service("inc", counting(runs1)));
        RpccServer s2 = server("s2", b -> b.service("inc", counting(runs2)));
        RpccServer s3 = server("s3", b -> b.service("last", p -> {
            runs3.incrementAndGet();
            entered.countDown();
            await(release); // blocks until the test releases it: the node is closed under it
            return (Integer) p + 100;
        }));
        int port3 = s3.address().getPort();
        RpccClient client = client(b -> b.retryPolicy(RetryPolicy.attempts(10)
                .backoff(Duration.ofMillis(200), Duration.ofSeconds(1), 2)));

        CompletableFuture<ChainResult> f = client.startChain(ChainCall.along(ROUTE, 1));
        await(entered);
        s3.close(); // killed mid-hop: the hop is abandoned, its originator told (NodeClosedException, retryable)
        release.countDown();
        server("s3", names, port3, b -> b.service("last", p -> {
            runs3Again.incrementAndGet();
            return (Integer) p + 100;
        }));

        ChainResult r = f.get(WAIT.toSeconds(), TimeUnit.SECONDS);
        assertEquals(103, r.value(), "1 + 1 + 1 + 100: the replayed results are the first run's");
        assertEquals(1, runs1.get(), "hop 1 ran once: the retry replayed its outcome");
        assertEquals(1, runs2.get(), "hop 2 ran once: the retry replayed its outcome");
        assertEquals(1, runs3.get(), "the killed hop 3 started once on the old node");
        assertEquals(1, runs3Again.get(), "hop 3 ran again, on the restarted node: it had not completed");
        assertTrue(s1.stats().outcomeCacheHits() >= 1, s1.stats().toString());
        assertTrue(s2.stats().outcomeCacheHits() >= 1, s2.stats().toString());
        assertTrue(client.stats().retries() >= 1, client.stats().toString());
        assertEquals(List.of("s1", "s2", "s3"), r.path());
    }

    /** A resolver that gives a dead address for {@code flaky} the first {@code failures} times. */
    private static NameResolver failingFirst(StaticNameResolver names, String flaky, int failures, int deadPort) {
        AtomicInteger left = new AtomicInteger(failures);
        return server -> server.equals(flaky) && left.getAndDecrement() > 0
                ? Optional.of(new InetSocketAddress("127.0.0.1", deadPort)) : names.resolve(server);
    }

    @Test
    void anIdempotentServiceFunctionRunsAgainAndTheOthersReplay() throws Exception {
        AtomicInteger runs1 = new AtomicInteger();
        AtomicInteger runs2 = new AtomicInteger();
        AtomicInteger runs3 = new AtomicInteger();
        server("s1", b -> b.service("inc", counting(runs1)));
        RpccServer s2 = server("s2", failingFirst(names, "s3", 1, freePort()), 0,
                b -> b.idempotentService("inc", counting(runs2)));
        server("s3", b -> b.service("last", counting(runs3)));
        RpccClient client = client(b -> b.retryPolicy(RetryPolicy.attempts(3)
                .backoff(Duration.ofMillis(10), Duration.ofMillis(50), 2)));

        ChainResult r = client.runChain(ChainCall.along(ROUTE, 1));
        assertEquals(4, r.value());
        assertEquals(1, runs1.get(), "replayed");
        assertEquals(2, runs2.get(), "declared idempotent: not cached, so it ran again");
        assertEquals(1, runs3.get());
        assertEquals(0, s2.stats().outcomeCacheHits() + s2.stats().outcomeCacheMisses(), "never looked up");
        assertEquals(1, client.stats().retries());
    }

    @Test
    void theApplicationSendsAFailedChainAgainWithItsId() throws Exception {
        AtomicInteger runs1 = new AtomicInteger();
        AtomicInteger runs2 = new AtomicInteger();
        AtomicInteger runs3 = new AtomicInteger();
        int port3 = freePort();
        names.register("s3", new InetSocketAddress("127.0.0.1", port3)); // nobody there yet
        server("s1", b -> b.service("inc", counting(runs1)));
        server("s2", b -> b.service("inc", counting(runs2)));
        RpccClient client = client(b -> b);

        ChainException e = failure(client.startChain(ChainCall.along(ROUTE, 1)));
        HopUnreachableException unreachable = assertInstanceOf(HopUnreachableException.class, e);
        assertTrue(unreachable.isRetryable());
        String id = client.chainIdOf(e).orElseThrow();
        assertTrue(id.startsWith(client.name() + "#"), id);

        server("s3", names, port3, b -> b.service("last", counting(runs3)));
        ChainResult r = client.retransmit(e, WAIT).get(WAIT.toSeconds(), TimeUnit.SECONDS);
        assertEquals(4, r.value());
        assertEquals(List.of(1, 1, 1), List.of(runs1.get(), runs2.get(), runs3.get()), "each hop ran once");
        assertThrows(IllegalArgumentException.class, () -> client.retransmit(e, WAIT), "a failure is sent again once");
        assertEquals(1, client.stats().retransmissions());
        assertEquals(0, client.stats().retries(), "the application's, not a policy's");
    }

    /** Runs a chain that fails at unreachable hop 3, lets {@code between} run, starts s3 and sends the chain again. */
    private void retransmitAfter(RpccClient client, int port3, AtomicInteger runs3, Runnable between) throws Exception {
        ChainException e = failure(client.startChain(ChainCall.along(ROUTE, 1)));
        assertInstanceOf(HopUnreachableException.class, e);
        between.run();
        server("s3", names, port3, b -> b.service("last", counting(runs3)));
        assertEquals(4, client.retransmit(e, WAIT).get(WAIT.toSeconds(), TimeUnit.SECONDS).value());
    }

    @Test
    void anOutcomeEvictedByTheEntryBoundRunsAgain() throws Exception {
        AtomicInteger runs1 = new AtomicInteger();
        AtomicInteger runs2 = new AtomicInteger();
        int port3 = freePort();
        names.register("s3", new InetSocketAddress("127.0.0.1", port3));
        RpccServer s1 = server("s1", b -> b.service("inc", counting(runs1)).service("other", p -> p)
                .outcomeCache(1, 1 << 20, Duration.ofMinutes(1)));
        server("s2", b -> b.service("inc", counting(runs2)));
        RpccClient client = client(b -> b);
        retransmitAfter(client, port3, new AtomicInteger(), () -> // another hop at s1 takes the only entry
                client.call("s1", "other", 7).join());
        assertEquals(2, runs1.get(), "s1 kept one outcome, the other chain's: hop 1 ran again");
        assertEquals(1, runs2.get(), "s2 kept its outcome");
        assertTrue(s1.stats().outcomeCacheEvictions() >= 1, s1.stats().toString());
        assertTrue(s1.stats().outcomeCacheEntries() <= 1, s1.stats().toString());
    }

    @Test
    void anOutcomeOverTheByteBoundIsNotKept() throws Exception {
        AtomicInteger runs1 = new AtomicInteger();
        int port3 = freePort();
        names.register("s3", new InetSocketAddress("127.0.0.1", port3));
        RpccServer s1 = server("s1", b -> b.service("inc", p -> {
            runs1.incrementAndGet();
            return (Integer) p + 1;
        }).service("big", p -> "x".repeat(10_000)).outcomeCache(100, 5_000, Duration.ofMinutes(1)));
        server("s2", b -> b.service("inc", counting(new AtomicInteger())));
        RpccClient client = client(b -> b);
        assertEquals(10_000, ((String) client.call("s1", "big", null).join().value()).length());
        eventually(() -> s1.stats().outcomeCacheEvictions() >= 1, "a 10 kB outcome evicted by a 5 kB bound");
        assertTrue(s1.stats().outcomeCacheBytes() <= 5_000, s1.stats().toString());
        retransmitAfter(client, port3, new AtomicInteger(), () -> { });
        assertEquals(1, runs1.get(), "a small outcome fits: replayed");
    }

    @Test
    void aHopWhoseRepliesGoOverTheByteBoundIsNotKeptAndARetransmissionGetsEveryReplyOnce() throws Exception {
        AtomicInteger runs1 = new AtomicInteger();
        int port3 = freePort();
        names.register("s3", new InetSocketAddress("127.0.0.1", port3));
        RpccServer s1 = server("s1", b -> b.service("inc", p -> {
            runs1.incrementAndGet();
            for (int i = 0; i < 8; i++) { // about 8 kB of replies: over the 5 kB bound
                ChainContext.current().preturn(i + ":" + "x".repeat(1_000));
            }
            return (Integer) p + 1;
        }).outcomeCache(100, 5_000, Duration.ofMinutes(1)));
        server("s2", b -> b.service("inc", counting(new AtomicInteger())));
        RpccClient client = client(b -> b);
        ChainException e = failure(client.startChain(ChainCall.along(ROUTE, 1)));
        assertInstanceOf(HopUnreachableException.class, e);
        eventually(() -> s1.stats().outcomeCacheEvictions() == 1, "the hop's entry dropped with its replies");
        assertEquals(0, s1.stats().outcomeCacheEntries());
        server("s3", names, port3, b -> b.service("last", counting(new AtomicInteger())));
        ChainResult r = client.retransmit(e, WAIT).get(WAIT.toSeconds(), TimeUnit.SECONDS);
        assertEquals(4, r.value());
        assertEquals(2, runs1.get(), "not kept: the hop ran again");
        assertEquals(8, r.replies().size(), "the new call gets every reply once: " + r.replies().size());
        assertEquals(8, new java.util.HashSet<>(r.replies()).size());
    }

    @Test
    void anOutcomePastItsTimeToLiveRunsAgain() throws Exception {
        AtomicInteger runs1 = new AtomicInteger();
        AtomicInteger runs2 = new AtomicInteger();
        int port3 = freePort();
        names.register("s3", new InetSocketAddress("127.0.0.1", port3));
        RpccServer s1 = server("s1", b -> b.service("inc", counting(runs1))
                .outcomeCache(100, 1 << 20, Duration.ofMillis(100)));
        server("s2", b -> b.service("inc", counting(runs2)));
        RpccClient client = client(b -> b);
        retransmitAfter(client, port3, new AtomicInteger(), () -> {
            try {
                Thread.sleep(300);
            } catch (InterruptedException e) {
                throw new IllegalStateException(e);
            }
        });
        assertEquals(2, runs1.get(), "s1 kept its outcome 100 ms: hop 1 ran again");
        assertEquals(1, runs2.get(), "s2 keeps its outcomes a minute");
        assertTrue(s1.stats().outcomeCacheMisses() >= 2, s1.stats().toString());
    }

    @Test
    void anExhaustedRetryBudgetStopsRetryingWithTheOriginalError() throws Exception {
        int dead = freePort();
        names.register("s3", new InetSocketAddress("127.0.0.1", dead)); // never there
        server("s1", b -> b.service("inc", counting(new AtomicInteger())));
        server("s2", b -> b.service("inc", counting(new AtomicInteger())));
        // two tokens, a retry costs one and needs more than half: one retry in all, then none
        RpccClient client = client(b -> b.retryThrottle(new RetryThrottle(2, 0, 1))
                .retryPolicy(RetryPolicy.attempts(5).backoff(Duration.ofMillis(10), Duration.ofMillis(20), 2)));

        ChainException first = failure(client.startChain(ChainCall.along(ROUTE, 1)));
        assertInstanceOf(HopUnreachableException.class, first);
        assertEquals(1, client.stats().retries(), "the budget allowed one retry");
        assertEquals(2, first.hop(), "hop 2 could not reach s3: " + first.getMessage());
        assertEquals("s2", first.host());
        assertTrue(first.getMessage().contains("s3"), first.getMessage());

        ChainException second = failure(client.startChain(ChainCall.along(ROUTE, 2)));
        assertInstanceOf(HopUnreachableException.class, second, "the original typed error");
        assertEquals(1, client.stats().retries(), "no token left: not retried");

        ChainException perCall = failure(client.startChain(ChainCall.along(ROUTE, 3).retry(RetryPolicy.NONE)));
        assertInstanceOf(HopUnreachableException.class, perCall);
    }

    /**
     * The retries stop by themselves before the call's timeout: a retry is sent only if the call's
     * time is not up after its backoff. With backoffs of 200, 400, 800 and 1,600 ms (no jitter) and a
     * 2.5 s timeout, retries go out at about 0.2, 0.6 and 1.4 s, and the fourth would go out at about
     * 3 s, past the timeout: so the call fails with its last attempt's error, about 1.4 s in. The last
     * attempt has some 1.1 s left, less the time the attempts before it took, to fail; only if the
     * attempts together took longer than that (each takes a few milliseconds) would the chain's deadline
     * end the last one first, with a {@code DeadlineExceededException}, which is then the right outcome.
     * (A backoff that leaves the last attempt a few milliseconds, as a constant 100 ms backoff near a
     * 700 ms timeout did, made that race part of the test.)
     */
    @Test
    void retriesStopAtTheCallsTimeout() throws Exception {
        names.register("s3", new InetSocketAddress("127.0.0.1", freePort()));
        server("s1", b -> b.service("inc", counting(new AtomicInteger())));
        server("s2", b -> b.service("inc", counting(new AtomicInteger())));
        RpccClient client = client(b -> b.retryPolicy(RetryPolicy.attempts(1000)
                .backoff(Duration.ofMillis(200), Duration.ofMillis(1600), 2).jitter(0)));
        long start = System.nanoTime();
        ChainException e = failure(client.startChain(ChainCall.along(ROUTE, 1).timeout(Duration.ofMillis(2500))));
        assertInstanceOf(HopUnreachableException.class, e, "the last attempt's error, not a timeout");
        assertTrue(System.nanoTime() - start < WAIT.toNanos() / 2);
        long retries = client.stats().retries();
        assertTrue(retries >= 1 && retries <= 3, "retried, and no retry after the timeout: " + client.stats());
    }

    @Test
    void aRetryWhoseBackoffEndsAfterTheCallsTimeoutIsNotSent() throws Exception {
        names.register("s3", new InetSocketAddress("127.0.0.1", freePort()));
        AtomicBoolean busy = new AtomicBoolean();
        AtomicInteger runs2 = new AtomicInteger();
        server("s1", b -> b.service("inc", counting(new AtomicInteger())));
        server("s2", b -> b.service("inc", p -> {
            if (runs2.incrementAndGet() == 2) {
                busy.set(true); // from now on the client's executor runs its tasks late, as on a loaded machine
            }
            return (Integer) p + 1;
        }));
        java.util.concurrent.Executor late = task -> Thread.startVirtualThread(() -> {
            if (busy.get()) {
                LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(600));
            }
            task.run();
        });
        RpccClient client = client(b -> b.executor(late).retryPolicy(RetryPolicy.attempts(5)
                .backoff(Duration.ofMillis(100), Duration.ofMillis(100), 1).jitter(0)));
        // a chain that reaches the client from s2 first: the failing chain's error takes the same connection
        assertEquals(3, client.startChain(ChainCall.along(StaticRoute.of(StaticRoute.hop("s1", "inc"),
                StaticRoute.hop("s2", "inc")), 1)).get(WAIT.toSeconds(), TimeUnit.SECONDS).value());
        // attempt 1 fails at once (s3 is unreachable) and its retry is due 100 ms later, well within the
        // 400 ms timeout; but the backoff's task runs 600 ms late, after the timeout: nothing is sent then
        ChainException e = failure(client.startChain(ChainCall.along(ROUTE, 1).timeout(Duration.ofMillis(400))));
        assertInstanceOf(HopUnreachableException.class, e, "the attempt's error, not a retry sent past the timeout");
        assertEquals(0, client.stats().retries(), "no retry after the timeout: " + client.stats());
    }

    @Test
    void aReplyOfAnAttemptThatWasReplacedIsNotLostTheReplaySendsItAgain() throws Exception {
        CountDownLatch lateGo = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        toOpen.add(lateGo);
        toOpen.add(release);
        AtomicInteger runs1 = new AtomicInteger();
        AtomicInteger runs2 = new AtomicInteger();
        RpccServer s1 = server("s1", failingFirst(names, "s2", 1, freePort()), 0, b -> b.service("replyLater", p -> {
            runs1.incrementAndGet();
            ChainContext ctx = ChainContext.current();
            ctx.startVirtualThread(() -> { // keeps attempt 1's hop 1 open: its reply and credit come late
                await(lateGo);
                ChainContext.current().preturn("late");
            });
            return p;
        }));
        server("s2", b -> b.service("hold", p -> {
            runs2.incrementAndGet();
            await(release);
            return "done";
        }));
        RpccClient client = client(b -> b);
        ReplySet<String> replies = client.startChainWithReplies(ChainCall.along(StaticRoute.of(
                StaticRoute.hop("s1", "replyLater"), StaticRoute.hop("s2", "hold")), 1)
                .retry(RetryPolicy.attempts(3).backoff(Duration.ofMillis(50), Duration.ofMillis(50), 1)), String.class);

        // attempt 1 broke after hop 1 (s2 unreachable) and was replaced while hop 1's thread still ran:
        // attempt 2's hop 1 waits at s1 until that run has sent everything, then replays it
        eventually(() -> s1.stats().outcomeCacheAttached() == 1, "attempt 2's hop 1 waits for the first run");
        long before = client.stats().earlierAttemptFrames();
        lateGo.countDown();
        eventually(() -> client.stats().earlierAttemptFrames() >= before + 2, "attempt 1's REPLY and QUIET dropped");
        release.countDown();

        List<String> got = new ArrayList<>();
        replies.forEach(got::add);
        assertEquals(List.of("late"), got, "attempt 1's reply was dropped as late, and the replay sent it again");
        assertEquals("done", replies.result().get(WAIT.toSeconds(), TimeUnit.SECONDS).value());
        assertFalse(replies.isPartial(), String.valueOf(replies.error()));
        assertEquals(0, replies.arrivedAfterEnd());
        assertEquals(1, runs1.get(), "hop 1 replayed");
        assertEquals(1, runs2.get());
        assertEquals(1, s1.stats().outcomeCacheHits());
        assertEquals(1, client.stats().retries());
        assertEquals(0, client.stats().repliesSentAgain(), "attempt 1's copy never reached the application");
        assertEquals(0, client.chainsInFlight());
    }

    @Test
    void repliesAReplayedHopSendsAgainAreDeliveredOnce() throws Exception {
        CountDownLatch entered = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        toOpen.add(release);
        AtomicInteger runs1 = new AtomicInteger();
        AtomicInteger runs2 = new AtomicInteger();
        server("s1", b -> b.service("inc", p -> {
            runs1.incrementAndGet();
            ChainContext.current().preturn("r1a");
            ChainContext.current().preturn("r1b");
            return (Integer) p + 1;
        }));
        server("s2", b -> b.service("inc", p -> {
            runs2.incrementAndGet();
            ChainContext.current().preturn("r2");
            return (Integer) p + 1;
        }));
        RpccServer s3 = server("s3", b -> b.service("last", p -> {
            ChainContext.current().preturn("r3 (first run)");
            entered.countDown();
            await(release);
            return (Integer) p + 100;
        }));
        int port3 = s3.address().getPort();
        RpccClient client = client(b -> b.retryPolicy(RetryPolicy.attempts(10)
                .backoff(Duration.ofMillis(200), Duration.ofSeconds(1), 2)));

        ReplySet<String> replies = client.startChainWithReplies(ChainCall.along(ROUTE, 1), String.class);
        List<String> got = new ArrayList<>();
        for (int i = 0; i < 4; i++) { // every reply of attempt 1 has reached the application
            got.add(replies.next());
        }
        await(entered);
        s3.close(); // killed mid-hop: the chain is sent again; hops 1 and 2 replay, with their replies
        release.countDown();
        server("s3", names, port3, b -> b.service("last", p -> {
            ChainContext.current().preturn("r3 (first run)"); // the same reply, from a hop that runs again
            ChainContext.current().preturn("r3 (second run)");
            return (Integer) p + 100;
        }));
        replies.forEach(got::add);

        assertEquals(103, replies.result().get(WAIT.toSeconds(), TimeUnit.SECONDS).value());
        assertFalse(replies.isPartial(), String.valueOf(replies.error()));
        assertEquals(List.of("r1a", "r1b", "r2", "r3 (first run)", "r3 (second run)"), got,
                "each reply once: replayed and rerun hops' replies numbered as before are dropped");
        assertEquals(1, runs1.get());
        assertEquals(1, runs2.get());
        assertEquals(4, client.stats().repliesSentAgain(), "r1a, r1b, r2 replayed and r3's first reply again");
        assertEquals(0, replies.arrivedAfterEnd());
    }

    /** s1 adds one; s2 replies, then adds one (counting its runs); s2 cannot reach the client the first time. */
    private RpccClient replyingChainWithUnreachableClientOnce(AtomicInteger runs2, RetryPolicy retry) throws IOException {
        server("s1", b -> b.service("inc", p -> (Integer) p + 1));
        server("s2", failingFirst(names, "c", 1, freePort()), 0, b -> b.service("inc", p -> {
            runs2.incrementAndGet();
            ChainContext.current().preturn("r2 of " + p); // the first run cannot reach the client: throws
            return (Integer) p + 1;
        }));
        return client(b -> b.name("c").retryPolicy(retry));
    }

    @Test
    void aPreturnThatCannotReachTheOriginatorFailsTheHopRetryablyAndTheRetryRunsItAgain() throws Exception {
        AtomicInteger runs2 = new AtomicInteger();
        RpccClient client = replyingChainWithUnreachableClientOnce(runs2,
                RetryPolicy.attempts(3).backoff(Duration.ofMillis(50), Duration.ofMillis(50), 1));
        ReplySet<String> replies = client.startChainWithReplies(ChainCall.along(StaticRoute.of(
                StaticRoute.hop("s1", "inc"), StaticRoute.hop("s2", "inc")), 1), String.class);
        List<String> got = new ArrayList<>();
        replies.forEach(got::add);
        assertEquals(3, replies.result().get(WAIT.toSeconds(), TimeUnit.SECONDS).value());
        assertEquals(List.of("r2 of 2"), got);
        assertEquals(2, runs2.get(), "hop 2 had not completed: its outcome was not kept, the retry ran it again");
        assertEquals(1, client.stats().retries());
    }

    @Test
    void aPreturnThatCannotReachTheOriginatorIsATypedRetryableFailureNamingTheHop() throws Exception {
        AtomicInteger runs2 = new AtomicInteger();
        RpccClient client = replyingChainWithUnreachableClientOnce(runs2, RetryPolicy.NONE);
        ReplySet<String> replies = client.startChainWithReplies(ChainCall.along(StaticRoute.of(
                StaticRoute.hop("s1", "inc"), StaticRoute.hop("s2", "inc")), 1), String.class);
        ChainException e = failure(replies.result());
        assertInstanceOf(HopUnreachableException.class, e, e.toString());
        assertTrue(e.isRetryable());
        assertEquals("s2", e.host());
        assertEquals(2, e.hop());
        assertTrue(e.remoteMessage().contains("could not send a partial reply to 'c'"), e.remoteMessage());
        assertTrue(e.remoteMessage().contains("runs again if the chain is sent again"), e.remoteMessage());
        assertEquals(1, runs2.get());
    }

    /**
     * The fault-injection suite's lost replies (seed 7, under load): a hop whose service function
     * returned, but a task it started through its context could not send its reply (the connection
     * to the client was down), had not completed; its outcome was kept all the same, so the chain
     * sent again replayed it without that reply, which was never kept, and ended complete without it.
     */
    @Test
    void aHopWhoseTaskCouldNotSendItsReplyIsNotKeptAndTheRetryRunsItAgainWithEveryReply() throws Exception {
        AtomicInteger runs1 = new AtomicInteger();
        AtomicInteger runs2 = new AtomicInteger();
        AtomicReference<Throwable> taskFailure = new AtomicReference<>();
        AtomicBoolean clientCut = new AtomicBoolean(true);
        AtomicInteger s2Refusals = new AtomicInteger(1);
        int dead = freePort();
        // s1 reaches neither the client (until its first task failed) nor, the first time, s2
        NameResolver s1Names = name -> name.equals("c") && clientCut.get()
                || name.equals("s2") && s2Refusals.getAndDecrement() > 0
                ? Optional.of(new InetSocketAddress("127.0.0.1", dead)) : names.resolve(name);
        server("s1", s1Names, 0, b -> b.service("replyLater", p -> {
            int run = runs1.incrementAndGet();
            CountDownLatch taskDone = new CountDownLatch(1);
            ChainContext.current().startVirtualThread(() -> {
                try {
                    ChainContext.current().preturn("late of run " + (run == 1 ? 1 : "again"));
                } catch (RuntimeException e) { // the first run's: the client cannot be reached
                    taskFailure.set(e);
                    throw e; // the task fails: the hop fails retryably (its credit comes back with no QUIET)
                } finally {
                    taskDone.countDown();
                }
            });
            await(taskDone); // (so that the hop hands over after its task failed, in the first run)
            clientCut.set(false);
            return (Integer) p + 1;
        }));
        server("s2", b -> b.service("inc", counting(runs2)));
        RpccClient client = client(b -> b.name("c").retryPolicy(RetryPolicy.attempts(3)
                .backoff(Duration.ofMillis(50), Duration.ofMillis(50), 1)));

        ReplySet<String> replies = client.startChainWithReplies(ChainCall.along(StaticRoute.of(
                StaticRoute.hop("s1", "replyLater"), StaticRoute.hop("s2", "inc")), 1), String.class);
        List<String> got = new ArrayList<>();
        replies.forEach(got::add);

        assertEquals(3, replies.result().get(WAIT.toSeconds(), TimeUnit.SECONDS).value());
        assertInstanceOf(HopUnreachableException.class, taskFailure.get(), String.valueOf(taskFailure.get()));
        assertEquals(1, client.stats().retries(), "attempt 1 failed at hop 2 (s2 unreachable) and was sent again");
        assertFalse(replies.isPartial(), String.valueOf(replies.error()));
        assertEquals(List.of("late of run again"), got, "the reply that could not be sent arrived with the retry");
        assertEquals(2, runs1.get(), "hop 1 had not completed (its task's reply could not reach the client): "
                + "its outcome was not kept, and the retry ran it again rather than replay it without the reply");
        assertEquals(1, runs2.get());
        assertEquals(0, replies.arrivedAfterEnd());
        assertEquals(0, client.chainsInFlight());
    }

    @Test
    void aHopArrivingWhileItsFirstRunStillRunsWaitsForItAndReplaysIt() throws Exception {
        CountDownLatch entered = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        toOpen.add(release);
        AtomicInteger runs = new AtomicInteger();
        RpccServer s1 = server("s1", b -> b.service("slow", p -> {
            runs.incrementAndGet();
            entered.countDown();
            await(release);
            return "ran " + p;
        }));
        try (RawPeer origin = new RawPeer("raw-origin", s1.address())) {
            origin.handshake();
            ChainRequest first = origin.request(7, "slow", "once");
            origin.send(RawPeer.bytes(first));
            await(entered);
            ChainRequest again = new ChainRequest(first.header().withAttempt(2), "once", ChainState.empty(), null);
            origin.send(RawPeer.bytes(again));
            eventually(() -> s1.stats().outcomeCacheAttached() == 1, "the second arrival waits for the first run");
            release.countDown();
            List<ChainResultFrame> results = new ArrayList<>();
            for (int i = 0; i < 2; i++) {
                results.add(assertInstanceOf(ChainResultFrame.class, origin.readBackFrame()));
            }
            ChainSecret secret = first.header().secret();
            for (ChainResultFrame r : results) {
                assertEquals("ran once", r.value());
                assertEquals(7, r.chainId());
            }
            assertTrue(results.stream().anyMatch(r -> r.secret().matches(secret)), "attempt 1's answer");
            assertTrue(results.stream().anyMatch(r -> r.secret().matches(secret.forAttempt(2))),
                    "attempt 2's answer, under its own secret");
        }
        assertEquals(1, runs.get(), "the service function ran once for both arrivals");
        assertEquals(1, s1.stats().outcomeCacheHits());
    }

    @Test
    void aClosedClientDoesNotRetry() throws Exception {
        CountDownLatch entered = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        toOpen.add(release);
        server("s1", b -> b.service("wait", p -> {
            entered.countDown();
            await(release);
            return p;
        }));
        RpccClient client = client(b -> b.retryPolicy(RetryPolicy.attempts(5)));
        CompletableFuture<ChainResult> f = client.call("s1", "wait", 1);
        await(entered);
        client.close();
        assertInstanceOf(NodeClosedException.class, failure(f));
        assertEquals(0, client.stats().retries());
    }
}
