package io.rpcc.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.rpcc.client.ChainCall;
import io.rpcc.client.RpccClient;
import io.rpcc.client.StateFallback;
import io.rpcc.core.ChainStreamException;
import io.rpcc.core.Refusal;
import io.rpcc.core.internal.wire.ChainErrorFrame;
import io.rpcc.core.internal.wire.ChainRequest;
import io.rpcc.core.internal.wire.NodeAddress;
import io.rpcc.core.internal.wire.StreamFrames;
import io.rpcc.core.internal.wire.WireFormat;
import io.rpcc.core.testing.RawPeer;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.net.SocketTimeoutException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.LinkedBlockingQueue;
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
    static final int KIB = 1024;
    static final int WINDOW = 512 * KIB;
    static final long BUDGET = 1024 * KIB;
    static Cluster cluster;
    static RpccServer s1;
    static RpccServer s2;
    static RpccClient client;
    /** What each stream's function read: its byte count, or the exception its read threw; by params. */
    static final Map<String, BlockingQueue<Object>> outcomes = new ConcurrentHashMap<>();
    /** Holds the functions of {@code hold} back from reading until counted down. */
    static final CountDownLatch release = new CountDownLatch(1);

    @BeforeAll
    static void start() {
        cluster = new Cluster();
        s1 = cluster.server("s1", b -> b
                .streamWindowBytes(WINDOW)
                .streamBufferBytes(BUDGET) // two streams' windows
                .streamIdleTimeout(Duration.ofMinutes(1)) // only a drop frees a stream within a test
                .maxBadFramesPerConnection(10_000)
                .service("echo", p -> p)
                .streamingService("hold", (p, in) -> {
                    release.await();
                    return count(p, in);
                })
                .streamingService("count", HostileStreamMemoryTest::count));
        s2 = cluster.server("s2", b -> b
                .streamWindowBytes(1024 * KIB)
                .streamBufferBytes(768 * KIB) // less than one stream's window
                .streamIdleTimeout(Duration.ofMinutes(1))
                .streamingService("count", HostileStreamMemoryTest::count));
        client = cluster.client();
    }

    @AfterAll
    static void stop() throws Exception {
        release.countDown();
        cluster.close();
    }

    static Object count(Object p, java.io.InputStream in) {
        long n = 0;
        byte[] buf = new byte[4096];
        try {
            for (int r; (r = in.read(buf)) >= 0; ) {
                n += r;
            }
            outcome(p).add(n);
        } catch (IOException e) {
            outcome(p).add(e);
        }
        return n;
    }

    static BlockingQueue<Object> outcome(Object key) {
        return outcomes.computeIfAbsent(String.valueOf(key), k -> new LinkedBlockingQueue<>());
    }

    static Object awaitOutcome(String key) throws InterruptedException {
        Object o = outcome(key).poll(20, TimeUnit.SECONDS);
        assertNotNull(o, "the function reading stream '" + key + "' did not end");
        return o;
    }

    static byte[] streamRequest(ChainRequest r, long stream) {
        return RawPeer.bytes(r.withStream(new WireFormat.AnnouncedStream(stream)));
    }

    /** {@code bytes} of data on {@code stream}, in 64 KiB frames. */
    static byte[][] data(long stream, int bytes) {
        List<byte[]> frames = new ArrayList<>();
        for (int sent = 0; sent < bytes; sent += 64 * KIB) {
            frames.add(RawPeer.bytes(new StreamFrames.Data(stream, new byte[Math.min(64 * KIB, bytes - sent)])));
        }
        return frames.toArray(byte[][]::new);
    }

    /** The next frame of type {@code type} the node sends on {@code peer}'s connection, within 10 s. */
    static <T> T awaitFrame(RawPeer peer, Class<T> type) throws IOException {
        peer.socket.setSoTimeout(10_000);
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        List<Object> seen = new ArrayList<>();
        while (System.nanoTime() < deadline) {
            try {
                Object f = peer.readFrame();
                if (type.isInstance(f)) {
                    return type.cast(f);
                }
                seen.add(f);
            } catch (SocketTimeoutException e) {
                break;
            }
        }
        throw new AssertionError("no " + type.getSimpleName() + " from the node; it sent " + seen);
    }

    static void awaitTrue(java.util.function.BooleanSupplier condition, String what) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (!condition.getAsBoolean() && System.nanoTime() < deadline) {
            Thread.sleep(10);
        }
        assertTrue(condition.getAsBoolean(), what);
    }

    @Test
    void streamsOverManyConnectionsHoldAtMostTheNodesBudget() throws Exception {
        long refusedBefore = s1.stats().refused(Refusal.STREAM_MEMORY);
        int connections = 3;
        int streamsEach = 2;
        List<RawPeer> peers = new ArrayList<>();
        try {
            for (int c = 0; c < connections; c++) {
                RawPeer peer = new RawPeer("raw-budget-" + c, s1.address());
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
                .streamingService("count", HostileStreamMemoryTest::count));
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
