package io.rpcc.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.rpcc.client.ChainCall;
import io.rpcc.client.ReplySet;
import io.rpcc.client.RpccClient;
import io.rpcc.core.BranchId;
import io.rpcc.core.ChainCancelledException;
import io.rpcc.core.ChainContext;
import io.rpcc.core.ChainResult;
import io.rpcc.core.ChainState;
import io.rpcc.core.ChainTimeoutException;
import io.rpcc.core.ChainingFunctionSource;
import io.rpcc.core.Metadata;
import io.rpcc.core.Refusal;
import io.rpcc.core.StaticRoute;
import io.rpcc.core.internal.wire.Credit;
import io.rpcc.core.internal.wire.CancelFrame;
import io.rpcc.core.internal.wire.ChainHeader;
import io.rpcc.core.internal.wire.ChainSoFar;
import io.rpcc.core.internal.wire.ChainIdentity;
import io.rpcc.core.internal.wire.ReturnRoute;
import io.rpcc.core.internal.wire.ChainLimits;
import io.rpcc.core.internal.wire.HeartbeatBudget;
import io.rpcc.core.internal.wire.ChainRequest;
import io.rpcc.core.internal.wire.ChainResultFrame;
import io.rpcc.core.internal.wire.ChainSecret;
import io.rpcc.core.internal.wire.NodeAddress;
import io.rpcc.core.testing.RawPeer;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Cancelling a chain at its originator stops it wherever it is: the notice follows the chain's
 * trail, the hop running is interrupted and sees {@code isCancelled()}, no further hop starts,
 * {@code preturn} throws, and the originator ends the call with {@link ChainCancelledException}.
 */
class ChainCancellationTest {
    static Cluster cluster;
    static RpccClient client;
    static final Map<String, RpccServer> servers = new ConcurrentHashMap<>();
    /** How many times each hop's service function ran, by {@code id@hop}. */
    static final Map<String, AtomicInteger> runs = new ConcurrentHashMap<>();
    /** What the service functions saw, by {@code id.what}. */
    static final Map<String, Object> seen = new ConcurrentHashMap<>();
    static final Map<String, CountDownLatch> latches = new ConcurrentHashMap<>();
    static final AtomicInteger producers = new AtomicInteger();
    static final StaticRoute FIVE_HOPS = StaticRoute.of(StaticRoute.hop("s1", "step"), StaticRoute.hop("s2", "step"),
            StaticRoute.hop("s3", "step"), StaticRoute.hop("s4", "step"), StaticRoute.hop("s5", "step"));
    /** Short, so that what the nodes remember of these chains (their budget plus 5 s) drains during the class. */
    static final Duration TIMEOUT = Duration.ofSeconds(10);

    static CountDownLatch latch(String name, int count) {
        return latches.computeIfAbsent(name, n -> new CountDownLatch(count));
    }

    static void await(String name) throws InterruptedException {
        assertTrue(latch(name, 1).await(20, TimeUnit.SECONDS), name + " never happened");
    }

    /**
     * Params {@code id|action|atHop}: at hop {@code atHop}, {@code block} blocks until interrupted;
     * {@code produce} starts two threads that send replies until {@code preturn} throws, then blocks.
     */
    static Object step(Object p) {
        String[] f = ((String) p).split("\\|");
        ChainContext ctx = ChainContext.current();
        String id = f[0];
        runs.computeIfAbsent(id + "@" + ctx.hop(), k -> new AtomicInteger()).incrementAndGet();
        if (Integer.parseInt(f[2]) != ctx.hop()) {
            return p;
        }
        if (f[1].equals("produce")) {
            for (int t = 0; t < 2; t++) {
                ctx.startThread(() -> produce(id));
            }
        }
        latch(id + ".entered", 1).countDown();
        try {
            Thread.sleep(60_000);
        } catch (InterruptedException e) {
            seen.put(id + ".interrupted", true);
            seen.put(id + ".cancelledSeen", ctx.isCancelled());
            latch(id + ".interrupted", 1).countDown();
        }
        return p; // dropped: the chain was cancelled
    }

    private static void produce(String id) {
        ChainContext ctx = ChainContext.current();
        try {
            for (int i = 0; ; i++) {
                ctx.preturn(id + ":" + i);
                try {
                    Thread.sleep(2);
                } catch (InterruptedException e) {
                    seen.put(id + ".producerInterrupted", true);
                }
            }
        } catch (RuntimeException e) {
            seen.put(id + ".producer" + producers.incrementAndGet(), e);
            latch(id + ".producers", 2).countDown();
        }
    }

    static int runs(String id, int hop) {
        AtomicInteger n = runs.get(id + "@" + hop);
        return n == null ? 0 : n.get();
    }

    @BeforeAll
    static void start() {
        cluster = new Cluster();
        for (int i = 1; i <= 5; i++) {
            String name = "s" + i;
            servers.put(name, cluster.server(name, b -> b.service("step", ChainCancellationTest::step)));
        }
        client = cluster.client();
    }

    @AfterAll
    static void stop() throws Exception {
        cluster.close();
    }

    /** Waits for the blocked hop to see the cancel, then long enough for a wrong hop 4 to have started. */
    private static void assertStoppedAtHop3(String id) throws Exception {
        await(id + ".interrupted");
        assertEquals(true, seen.get(id + ".cancelledSeen"), "isCancelled() is true when the interrupt comes");
        Thread.sleep(300);
        assertEquals(1, runs(id, 3));
        assertEquals(0, runs(id, 4), "no hop starts after the cancel");
        assertEquals(0, runs(id, 5));
        assertEquals(0, client.chainsInFlight());
    }

    @Test
    void cancellingTheFutureStopsAFiveHopChainBlockedAtHop3() throws Exception {
        CompletableFuture<ChainResult> f = client.startChain(ChainCall.along(FIVE_HOPS, "future|block|3").timeout(TIMEOUT));
        await("future.entered");
        assertTrue(f.cancel(true));
        assertTrue(f.isCancelled());
        CancellationException e = assertThrows(CancellationException.class, f::join);
        Throwable why = e;
        while (why != null && !(why instanceof ChainCancelledException)) {
            why = why.getCause(); // join may wrap the future's CancellationException in one of its own
        }
        ChainCancelledException cause = assertInstanceOf(ChainCancelledException.class, why, e::toString);
        assertEquals(client.name(), cause.host());
        assertTrue(cause.remoteMessage().contains("was cancelled by its originator (its future was cancelled)"),
                cause.remoteMessage());
        assertStoppedAtHop3("future");
        assertFalse(f.cancel(true), "cancelled once");
    }

    @Test
    void cancellingAnInteractiveChainStopsItsStepInFlightAndTheStepsAfter() throws Exception {
        CompletableFuture<ChainResult> f = client.startChain(ChainCall.along(FIVE_HOPS, "interactive|block|3")
                .timeout(TIMEOUT).interactive(true));
        await("interactive.entered");
        assertTrue(f.cancel(true));
        assertThrows(CancellationException.class, f::join);
        assertStoppedAtHop3("interactive");
    }

    @Test
    void cancellingAReplySetStopsItsProducersAndItsChain() throws Exception {
        ReplySet<String> replies = client.startChainWithReplies(ChainCall.along(FIVE_HOPS, "replies|produce|3").timeout(TIMEOUT),
                String.class);
        for (int i = 0; i < 5; i++) {
            assertTrue(replies.next().startsWith("replies:"));
        }
        assertTrue(replies.cancel());
        assertTrue(replies.isDone());
        assertTrue(replies.isPartial());
        ChainCancelledException e = assertInstanceOf(ChainCancelledException.class, replies.error());
        assertTrue(e.remoteMessage().contains("ReplySet.cancel()"), e.remoteMessage());
        CompletionException r = assertThrows(CompletionException.class, () -> replies.result().join());
        assertInstanceOf(ChainCancelledException.class, r.getCause());
        assertFalse(replies.cancel(), "the set has ended");

        assertTrue(latch("replies.producers", 2).await(20, TimeUnit.SECONDS), "the producers stopped");
        for (int t = 1; t <= 2; t++) {
            Object thrown = seen.get("replies.producer" + t);
            ChainCancelledException atProducer = assertInstanceOf(ChainCancelledException.class, thrown);
            assertEquals("s3", atProducer.host());
            assertEquals(3, atProducer.hop());
        }
        assertStoppedAtHop3("replies");
        assertEquals(0, replies.arrivedAfterEnd(), "what arrived after the cancel went to the late-frame count");
        while (replies.hasMore()) {
            replies.next(); // the replies received before the cancel stay readable
        }
    }

    @Test
    void theClientTimeoutCancelsTheChainToo() throws Exception {
        CompletableFuture<ChainResult> f = client.startChain(ChainCall.along(FIVE_HOPS, "timeout|block|3")
                .timeout(Duration.ofSeconds(2)));
        await("timeout.entered");
        CompletionException e = assertThrows(CompletionException.class, f::join);
        assertInstanceOf(ChainTimeoutException.class, e.getCause());
        assertStoppedAtHop3("timeout");
    }

    @Test
    void aForgedCancelIsRefusedAndCountedAndStopsNothing() throws Exception {
        CompletableFuture<ChainResult> f = client.startChain(ChainCall.along(FIVE_HOPS, "forged|block|1").timeout(TIMEOUT));
        await("forged.entered");
        RpccServer s1 = servers.get("s1");
        long forgedBefore = s1.stats().refused(Refusal.FORGED_FRAME);
        InetSocketAddress at = cluster.names.resolve("s1").orElseThrow();
        // the chain is the client's first: ids start at 1; try the first few with a guessed secret
        try (RawPeer peer = new RawPeer("mallory", at)) {
            peer.hello("mallory", "127.0.0.1", peer.listener.getLocalPort());
            for (long id = 1; id <= 8; id++) {
                peer.send(RawPeer.bytes(new CancelFrame(id, ChainSecret.random(), client.name(),
                        Duration.ofSeconds(5).toNanos())));
            }
            for (int i = 0; i < 100 && s1.stats().refused(Refusal.FORGED_FRAME) == forgedBefore; i++) {
                Thread.sleep(20);
            }
        }
        assertTrue(s1.stats().refused(Refusal.FORGED_FRAME) > forgedBefore, "the forged cancel is counted");
        assertFalse(f.isDone());
        assertTrue(seen.get("forged.interrupted") == null, "the running hop was not interrupted");
        f.cancel(true);
        await("forged.interrupted");
    }

    /**
     * Also when the cancel carries no budget (the originator's timeout fired): the request carries
     * the budget it left with, counted from its arrival, so it could still start here.
     */
    @ParameterizedTest(name = "cancel with {0} ms of budget")
    @ValueSource(longs = {10_000, 0})
    void aCancelThatOvertakesItsRequestMakesTheNodeRefuseIt(long cancelBudgetMillis) throws Exception {
        String originName = "origin-" + cancelBudgetMillis;
        RpccServer s1 = servers.get("s1");
        long refusedBefore = s1.refusedAfterCancel();
        try (RawPeer origin = new RawPeer(originName, cluster.names.resolve("s1").orElseThrow())) {
            origin.handshake();
            ChainSecret secret = ChainSecret.random();
            long budget = TIMEOUT.toNanos();
            origin.send(RawPeer.bytes(new CancelFrame(1, secret, originName,
                    TimeUnit.MILLISECONDS.toNanos(cancelBudgetMillis))));
            int port = origin.listener.getLocalPort();
            NodeAddress self = new NodeAddress(originName, "127.0.0.1", port);
            origin.send(RawPeer.bytes(new ChainRequest(new ChainHeader(new ChainIdentity(1, secret,
                    new NodeAddress(originName, "127.0.0.1", port), 1),
                new ChainSoFar(1, List.of(), List.of(), List.of(), Metadata.empty()), "step",
                        ChainingFunctionSource.NONE, Credit.ONE,
                new ReturnRoute(self, List.of(), BranchId.root()), new ChainLimits(10, budget, HeartbeatBudget.NONE)),
                    "overtaken" + cancelBudgetMillis + "|none|0", ChainState.empty(), null)));
            // a chain that was not cancelled runs, and its result comes back: the node read both frames
            origin.send(RawPeer.bytes(new ChainRequest(new ChainHeader(new ChainIdentity(2, ChainSecret.random(),
                    new NodeAddress(originName, "127.0.0.1", port), 1),
                new ChainSoFar(1, List.of(), List.of(), List.of(), Metadata.empty()), "step",
                        ChainingFunctionSource.NONE, Credit.ONE,
                new ReturnRoute(self, List.of(), BranchId.root()), new ChainLimits(10, budget, HeartbeatBudget.NONE)),
                    "notCancelled" + cancelBudgetMillis + "|none|0", ChainState.empty(), null)));
            assertInstanceOf(ChainResultFrame.class, origin.read());
        }
        assertEquals(1, runs("notCancelled" + cancelBudgetMillis, 1));
        assertEquals(0, runs("overtaken" + cancelBudgetMillis, 1),
                "the request that came after its cancel did not run");
        assertEquals(refusedBefore + 1, s1.refusedAfterCancel());
    }

    @Test
    void everyTableDrainsOnceTheChainsHaveEnded() throws Exception {
        CompletableFuture<ChainResult> f = client.startChain(ChainCall.along(FIVE_HOPS, "drain|block|2")
                .timeout(Duration.ofSeconds(3)));
        await("drain.entered");
        f.cancel(true);
        await("drain.interrupted");
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30); // every chain's budget + 5 s, and more
        while (System.nanoTime() < deadline && !drained()) {
            Thread.sleep(100);
        }
        assertTrue(drained(), () -> "client " + client.chainsInFlight() + " in flight, servers (trails/hops/streams) "
                + servers.values().stream().map(s -> s.name() + "=" + s.trackedChains() + "/" + s.hopsInFlight() + "/"
                + s.replyStreams()).toList());
    }

    private static boolean drained() {
        return client.chainsInFlight() == 0
                && servers.values().stream().allMatch(s -> s.trackedChains() == 0 && s.hopsInFlight() == 0
                && s.replyStreams() == 0);
    }
}
