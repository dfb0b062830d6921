package io.rpcc.server;

import static io.rpcc.server.HostileStreams.awaitFrame;
import static io.rpcc.server.HostileStreams.awaitTrue;
import static io.rpcc.server.HostileStreams.data;
import static io.rpcc.server.HostileStreams.streamRequest;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.rpcc.client.ChainCall;
import io.rpcc.client.RpccClient;
import io.rpcc.client.StateFallback;
import io.rpcc.core.ChainResult;
import io.rpcc.core.ChainStreamException;
import io.rpcc.core.Refusal;
import io.rpcc.core.internal.wire.ChainErrorFrame;
import io.rpcc.core.internal.wire.ChainRequest;
import io.rpcc.core.internal.wire.NodeAddress;
import io.rpcc.core.internal.wire.StreamFrames;
import io.rpcc.core.testing.RawPeer;
import java.io.ByteArrayInputStream;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Hostile senders of hop data streams against a node's memory, from raw sockets: many connections
 * each opening streams and pushing all the room they get while the functions do not read, a stream
 * that wants more room than the node's budget has left, and streams of requests refused before their
 * hop runs. The node holds at most its node-wide budget ({@code streamBufferBytes}), refuses the
 * streams that do not fit ({@link Refusal#STREAM_MEMORY}), drops a refused request's stream at once,
 * and goes on serving other chains.
 */
class HostileStreamMemoryTest {
    static final int KIB = HostileStreams.KIB;
    static final int WINDOW = 512 * KIB;
    static final long BUDGET = 1024 * KIB;
    static final HostileStreams streams = new HostileStreams();
    static Cluster cluster;
    static RpccServer s1;
    static RpccServer s2;
    static RpccClient client;
    /** Holds the functions of {@code hold} back from reading until counted down. */
    static final CountDownLatch release = new CountDownLatch(1);

    @BeforeAll
    static void start() {
        cluster = new Cluster();
        s1 = cluster.server("s1", b -> b
                .streamWindowBytes(WINDOW)
                .streamBufferBytes(BUDGET) // two streams' windows, one for each address
                .streamIdleTimeout(Duration.ofMinutes(1)) // only a drop frees a stream within a test
                .maxBadFramesPerConnection(10_000)
                .service("echo", p -> p)
                .streamingService("hold", (p, in) -> {
                    release.await();
                    return streams.count(p, in);
                })
                .streamingService("count", streams::count));
        s2 = cluster.server("s2", b -> b
                .streamWindowBytes(1024 * KIB)
                .streamBufferBytes(768 * KIB) // less than one stream's window
                .streamBufferShare(1) // one address may hold it all: the node-wide budget alone
                .streamIdleTimeout(Duration.ofMinutes(1))
                .streamingService("count", streams::count));
        client = cluster.client();
    }

    @AfterAll
    static void stop() throws Exception {
        release.countDown();
        cluster.close();
    }

    static BlockingQueue<Object> outcome(Object key) {
        return streams.outcome(key);
    }

    static Object awaitOutcome(String key) throws InterruptedException {
        return streams.awaitOutcome(key);
    }

    /** The loopback address {@code 127.0.0.<n>}: peers on one host with addresses of their own. */
    static InetAddress loopback(int n) throws UnknownHostException {
        return InetAddress.getByAddress(new byte[] {127, 0, 0, (byte) n});
    }

    @Test
    void streamsOverManyConnectionsHoldAtMostTheNodesBudget() throws Exception {
        long refusedBefore = s1.stats().refused(Refusal.STREAM_MEMORY);
        int connections = 3;
        int streamsEach = 2;
        List<RawPeer> peers = new ArrayList<>();
        try {
            for (int c = 0; c < connections; c++) { // from addresses of their own: each may hold half the budget
                RawPeer peer = new RawPeer("raw-budget-" + c, s1.address(), loopback(10 + c));
                peer.handshake();
                peers.add(peer);
                for (int i = 1; i <= streamsEach; i++) { // each pushes a whole window, whatever it was told
                    peer.send(streamRequest(peer.request(i, "hold", "budget-" + c + "-" + i), i));
                    peer.send(data(i, WINDOW));
                    peer.send(RawPeer.bytes(new StreamFrames.End(i, WINDOW, null)));
                }
            }
            int all = connections * streamsEach;
            int fit = (int) (BUDGET / WINDOW);
            awaitTrue(() -> s1.stats().refused(Refusal.STREAM_MEMORY) >= refusedBefore + all - fit,
                    "streams over the budget are refused");
            assertEquals(refusedBefore + all - fit, s1.stats().refused(Refusal.STREAM_MEMORY));
            awaitTrue(() -> s1.streamStats().bufferedBytes() == fit * (long) WINDOW, "the streams taken in are buffered: "
                    + s1.streamStats());
            StreamStats held = s1.streamStats();
            assertTrue(held.peakBufferedBytes() <= BUDGET, "the node held " + held.peakBufferedBytes()
                    + " bytes of streams at once, over its budget of " + BUDGET);
            assertTrue(held.heldBytes() <= BUDGET, held.toString());
            assertEquals("ok", client.call("s1", "echo", "ok").join().value(), "the node serves other chains");

            release.countDown();
            int taken = 0;
            for (int c = 0; c < connections; c++) {
                for (int i = 1; i <= streamsEach; i++) {
                    Object o = awaitOutcome("budget-" + c + "-" + i);
                    if (o instanceof ChainStreamException e) {
                        assertEquals(ChainStreamException.Reason.REFUSED, e.reason());
                        assertTrue(e.getMessage().contains("streamBufferBytes"), e.getMessage());
                    } else {
                        assertEquals((long) WINDOW, o);
                        taken++;
                    }
                }
            }
            assertEquals(fit, taken);
            awaitTrue(() -> s1.streamStats().heldBytes() == 0 && s1.streamStats().bufferedBytes() == 0,
                    "the budget is back once the streams are read: " + s1.streamStats());
            RawPeer again = peers.get(0); // room again: a new stream is taken in
            again.send(streamRequest(again.request(10, "count", "budget-again"), 10));
            again.send(data(10, 1000));
            again.send(RawPeer.bytes(new StreamFrames.End(10, 1000, null)));
            assertEquals(1000L, awaitOutcome("budget-again"));
            assertEquals(refusedBefore + all - fit, s1.stats().refused(Refusal.STREAM_MEMORY));
        } finally {
            for (RawPeer p : peers) {
                p.close();
            }
        }
    }

    @Test
    void aPeerHoldingItsShareOfTheBudgetLeavesRoomForAnotherClientsStream() throws Exception {
        CountDownLatch read = new CountDownLatch(1);
        RpccServer s4 = cluster.server("s4", b -> b
                .streamWindowBytes(WINDOW)
                .streamBufferBytes(BUDGET) // two windows; one address may hold half (the default share)
                .streamIdleTimeout(Duration.ofMinutes(1))
                .service("echo", p -> p)
                .streamingService("hold", (p, in) -> {
                    read.await();
                    return streams.count(p, in);
                })
                .streamingService("count", streams::count));
        assertEquals(BUDGET / 2, s4.streamStats().budgetBytesPerAddress());
        long before = s4.stats().refused(Refusal.STREAM_MEMORY);
        long echoAlone = echoNanos(s4);
        List<RawPeer> hostile = new ArrayList<>();
        try {
            for (int c = 1; c <= 2; c++) { // one address, two connections, each pushing a window nobody reads
                RawPeer peer = new RawPeer("raw-share-" + c, s4.address(), loopback(2));
                peer.handshake();
                hostile.add(peer);
                peer.send(streamRequest(peer.request(1, "hold", "share-" + c), 1));
                if (c == 1) {
                    StreamFrames.Credit more = awaitFrame(peer, StreamFrames.Credit.class);
                    assertEquals(WINDOW - StreamFrames.INITIAL_WINDOW, more.bytes(), "a window: all of the share");
                }
                peer.send(data(1, WINDOW)); // the second pushes it anyway
            }
            StreamFrames.Cancel cancel = awaitFrame(hostile.get(1), StreamFrames.Cancel.class);
            assertTrue(cancel.message().contains("from 127.0.0.2 already held " + BUDGET / 2 + " of the " + BUDGET / 2
                    + " bytes one address may hold (NodeBuilder.streamBufferShare"), cancel.message());
            awaitTrue(() -> s4.streamStats().bufferedBytes() == WINDOW, "the share is buffered: " + s4.streamStats());
            assertEquals(BUDGET / 2, s4.streamStats().heldBytes());

            long honest = 4L * WINDOW; // the client's stream, from 127.0.0.1: taken in, and read through
            long start = System.nanoTime();
            ChainResult r = client.runChain(ChainCall.to("s4", "count").params("honest")
                    .stream(new ByteArrayInputStream(new byte[(int) honest])));
            long streamed = System.nanoTime() - start;
            assertEquals(honest, r.value());
            assertEquals(honest, awaitOutcome("honest"));
            long echoBeside = echoNanos(s4);
            System.out.printf("fairness: echo %.2f ms alone, %.2f ms beside the hostile peer; %d KiB streamed in %.1f ms%n",
                    echoAlone / 1e6, echoBeside / 1e6, honest / KIB, streamed / 1e6);
            assertEquals(before + 1, s4.stats().refused(Refusal.STREAM_MEMORY), "only the hostile peer's second stream");
            assertTrue(s4.streamStats().peakBufferedBytes() <= BUDGET, s4.streamStats().toString());
        } finally {
            read.countDown();
            for (RawPeer p : hostile) {
                p.close();
            }
        }
        ChainStreamException refused = assertInstanceOf(ChainStreamException.class, awaitOutcome("share-2"));
        assertEquals(ChainStreamException.Reason.REFUSED, refused.reason());
        Object first = awaitOutcome("share-1"); // read once let go, or cut off by its connection's close
        assertTrue(first.equals((long) WINDOW) || first instanceof ChainStreamException, String.valueOf(first));
        awaitTrue(() -> s4.streamStats().heldBytes() == 0, "the budget is back: " + s4.streamStats());
    }

    /** The median time of 20 echo chains to {@code server}, in nanoseconds. */
    static long echoNanos(RpccServer server) {
        String name = server.name();
        long[] times = new long[20];
        for (int i = 0; i < times.length; i++) {
            long start = System.nanoTime();
            assertEquals("ok", client.call(name, "echo", "ok").join().value());
            times[i] = System.nanoTime() - start;
        }
        java.util.Arrays.sort(times);
        return times[times.length / 2];
    }

    @Test
    void aStreamGetsMoreRoomOnlyAsTheBudgetFrees() throws Exception {
        long total = 3L * 1024 * KIB;
        try (RawPeer peer = new RawPeer("raw-room", s2.address())) {
            peer.handshake();
            peer.send(streamRequest(peer.request(1, "count", "room"), 1));
            long granted = StreamFrames.INITIAL_WINDOW;
            long sent = 0;
            while (sent < total) {
                while (sent < granted && sent < total) {
                    int n = (int) Math.min(64 * KIB, Math.min(granted, total) - sent);
                    peer.send(RawPeer.bytes(new StreamFrames.Data(1, new byte[n])));
                    sent += n;
                }
                if (sent < total) {
                    StreamFrames.Credit c = awaitFrame(peer, StreamFrames.Credit.class);
                    granted += c.bytes();
                    assertTrue(granted <= sent + 768 * KIB, "room beyond the budget: " + granted + " granted, "
                            + sent + " sent");
                }
            }
            peer.send(RawPeer.bytes(new StreamFrames.End(1, total, null)));
            assertEquals(total, awaitOutcome("room"));
        }
        StreamStats stats = s2.streamStats();
        assertTrue(stats.peakBufferedBytes() <= 768 * KIB, stats.toString());
        awaitTrue(() -> s2.streamStats().heldBytes() == 0, "the budget is back: " + s2.streamStats());
    }

    @Test
    void aSecondStreamThatDoesNotFitIsRefusedAndItsDataDropped() throws Exception {
        long before = s2.stats().refused(Refusal.STREAM_MEMORY);
        try (RawPeer first = new RawPeer("raw-fit-1", s2.address());
             RawPeer second = new RawPeer("raw-fit-2", s2.address())) {
            first.handshake();
            second.handshake();
            first.send(streamRequest(first.request(1, "count", "fit-1"), 1)); // takes the whole budget
            StreamFrames.Credit c = awaitFrame(first, StreamFrames.Credit.class);
            assertEquals(768 * KIB - StreamFrames.INITIAL_WINDOW, c.bytes(), "room up to the budget, not the window");
            second.send(streamRequest(second.request(1, "count", "fit-2"), 1));
            second.send(data(1, StreamFrames.INITIAL_WINDOW)); // sent anyway: dropped, not buffered
            StreamFrames.Cancel cancel = awaitFrame(second, StreamFrames.Cancel.class);
            assertEquals(1, cancel.stream());
            ChainStreamException e = assertInstanceOf(ChainStreamException.class, awaitOutcome("fit-2"));
            assertEquals(ChainStreamException.Reason.REFUSED, e.reason());
            assertEquals(before + 1, s2.stats().refused(Refusal.STREAM_MEMORY));
            assertEquals(0, s2.stats().refused(Refusal.STREAM_VIOLATION), "late data of a refused stream is not a violation");
            first.send(RawPeer.bytes(new StreamFrames.End(1, 0, null)));
            assertEquals(0L, awaitOutcome("fit-1"));
            awaitTrue(() -> s2.streamStats().heldBytes() == 0 && s2.streamStats().bufferedBytes() == 0,
                    "nothing held: " + s2.streamStats());
        }
    }

    @Test
    void theStreamOfARequestRefusedBeforeItsHopRunsIsDroppedAtOnce() throws Exception {
        long before = s1.stats().refused(Refusal.UNVOUCHED_ADDRESS);
        try (RawPeer peer = new RawPeer("raw-unvouched", s1.address())) {
            peer.handshake();
            ChainRequest r = peer.requestFrom(new NodeAddress("victim", "10.1.2.3", 7000), 1, "count", "unvouched");
            peer.send(streamRequest(r, 1));
            peer.send(data(1, StreamFrames.INITIAL_WINDOW));
            StreamFrames.Cancel cancel = awaitFrame(peer, StreamFrames.Cancel.class); // long before the idle timeout
            assertEquals(1, cancel.stream());
            awaitTrue(() -> s1.stats().refused(Refusal.UNVOUCHED_ADDRESS) > before, "refused as unvouched");
            awaitTrue(() -> s1.streamStats().heldBytes() == 0 && s1.streamStats().bufferedBytes() == 0,
                    "the refused request's stream holds nothing: " + s1.streamStats());
        }
        assertTrue(outcome("unvouched").isEmpty(), "the hop did not run");
    }

    @Test
    void theStreamOfARequestForAnUnknownFunctionIsDroppedAtOnce() throws Exception {
        try (RawPeer peer = new RawPeer("raw-unknown", s1.address())) {
            peer.handshake();
            peer.send(streamRequest(peer.request(1, "noSuchFunction", "unknown"), 1));
            peer.send(data(1, StreamFrames.INITIAL_WINDOW));
            StreamFrames.Cancel cancel = awaitFrame(peer, StreamFrames.Cancel.class); // long before the idle timeout
            assertEquals(1, cancel.stream());
            awaitTrue(() -> s1.streamStats().heldBytes() == 0 && s1.streamStats().bufferedBytes() == 0,
                    "the stream holds nothing: " + s1.streamStats());
        }
    }

    @Test
    void theStreamOfARequestToANodeShuttingDownIsDroppedAtOnce() throws Exception {
        CountDownLatch running = new CountDownLatch(1);
        CountDownLatch finish = new CountDownLatch(1);
        RpccServer s3 = cluster.server("s3", b -> b
                .streamIdleTimeout(Duration.ofMinutes(1))
                .service("slow", p -> {
                    running.countDown();
                    finish.await();
                    return p;
                })
                .streamingService("count", streams::count));
        try (RawPeer peer = new RawPeer("raw-draining", s3.address())) {
            peer.handshake();
            CompletableFuture<?> slow = client.call("s3", "slow", "x");
            assertTrue(running.await(10, TimeUnit.SECONDS));
            Thread draining = Thread.ofPlatform().start(() -> s3.shutdown(Duration.ofSeconds(20)));
            Thread.sleep(200); // draining: it waits for the slow hop
            peer.send(streamRequest(peer.request(1, "count", "draining"), 1));
            peer.send(data(1, StreamFrames.INITIAL_WINDOW));
            StreamFrames.Cancel cancel = awaitFrame(peer, StreamFrames.Cancel.class);
            assertEquals(1, cancel.stream());
            awaitTrue(() -> s3.streamStats().heldBytes() == 0 && s3.streamStats().bufferedBytes() == 0,
                    "the refused request's stream holds nothing: " + s3.streamStats());
            finish.countDown();
            slow.join();
            draining.join(20_000);
        } finally {
            finish.countDown();
        }
        assertTrue(outcome("draining").isEmpty(), "the hop did not run");
    }

    @Test
    void aStreamWithTheStateKeptAtTheClientIsRefusedAtOnce() {
        for (StateFallback fallback : List.of(StateFallback.ADAPTIVE, StateFallback.ALWAYS)) {
            IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> client.runChain(
                    ChainCall.to("s1", "count").params("fallback").chainingFunction(HopStreamTest.TO_S2)
                            .stateFallback(fallback).stream(new ByteArrayInputStream(new byte[10]))));
            assertTrue(e.getMessage().contains("StateFallback.NEVER"), e.getMessage());
            CompletionException started = assertThrows(CompletionException.class, () -> client.startChain(
                    ChainCall.to("s1", "count").chainingFunction(HopStreamTest.TO_S2).stateFallback(fallback)
                            .stream(new ByteArrayInputStream(new byte[10]))).join());
            assertInstanceOf(IllegalArgumentException.class, started.getCause());
        }
        assertTrue(outcome("fallback").isEmpty(), "no hop ran");
    }
}
