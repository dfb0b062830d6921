package io.rpcc.server;

import static io.rpcc.server.HostileStreams.awaitFrame;
import static io.rpcc.server.HostileStreams.awaitTrue;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.rpcc.client.RpccClient;
import io.rpcc.core.ChainStreamException;
import io.rpcc.core.Refusal;
import io.rpcc.core.internal.wire.StreamFrames;
import io.rpcc.core.testing.RawPeer;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Hostile senders of hop data streams, from raw sockets: data for a stream nobody announced, data
 * after a stream's end, more data than the room granted, a stream that never moves, thousands of
 * streams on one connection, a sender that disappears mid-stream. Each is refused and counted, the
 * function reading the stream gets a typed {@link ChainStreamException}, and the node goes on
 * serving other chains.
 */
class HostileStreamTest {
    static final HostileStreams streams = new HostileStreams();
    static Cluster cluster;
    static RpccServer s1;
    static RpccServer s2;
    static RpccClient client;

    @BeforeAll
    static void start() {
        cluster = new Cluster();
        s1 = cluster.server("s1", b -> b
                .streamWindowBytes(256 * 1024) // no room beyond the initial window
                .maxStreamsPerConnection(8)
                .streamIdleTimeout(Duration.ofMillis(500))
                .maxBadFramesPerConnection(10_000)
                .service("echo", p -> p)
                .streamingService("count", streams::count)
                .streamingService("waitThenCount", (p, in) -> {
                    Thread.sleep(1000); // the sender fills the window meanwhile
                    return streams.count(p, in);
                }));
        s2 = cluster.server("s2", b -> b
                .maxStreamsPerConnection(8)
                .maxBadFramesPerConnection(10_000)
                .streamingService("count", streams::count));
        client = cluster.client();
    }

    @AfterAll
    static void stop() throws Exception {
        cluster.close();
    }

    static Object awaitOutcome(String key) throws InterruptedException {
        return streams.awaitOutcome(key);
    }

    static byte[] streamRequest(RawPeer peer, long chain, String function, String key, long stream) {
        return HostileStreams.streamRequest(peer.request(chain, function, key), stream);
    }

    static void nodeStillServes() {
        assertEquals("ok", client.call("s1", "echo", "ok").join().value());
    }

    static void awaitRefusals(Refusal kind, long atLeast) throws InterruptedException {
        awaitTrue(() -> s1.stats().refused(kind) >= atLeast,
                kind + ": " + s1.stats().refused(kind) + " < " + atLeast);
    }

    @Test
    void dataForAStreamNobodyAnnouncedIsRefused() throws Exception {
        long before = s1.stats().refused(Refusal.STREAM_VIOLATION);
        try (RawPeer peer = new RawPeer("raw-unannounced", s1.address())) {
            peer.handshake();
            peer.send(RawPeer.bytes(new StreamFrames.Data(12345, new byte[100])),
                    RawPeer.bytes(new StreamFrames.End(12346, 0, null)));
            awaitRefusals(Refusal.STREAM_VIOLATION, before + 2);
            assertTrue(s1.stats().refused(Refusal.STREAM_VIOLATION) <= before + 2);
            nodeStillServes();
        }
    }

    @Test
    void dataAfterAStreamsEndIsRefusedAndTheStreamKeepsWhatCameBefore() throws Exception {
        try (RawPeer peer = new RawPeer("raw-after-end", s1.address())) {
            peer.handshake();
            peer.send(streamRequest(peer, 1, "count", "after-end", 1),
                    RawPeer.bytes(new StreamFrames.Data(1, new byte[1000])),
                    RawPeer.bytes(new StreamFrames.End(1, 1000, null)));
            assertEquals(1000L, awaitOutcome("after-end"));
            long before = s1.stats().refused(Refusal.STREAM_VIOLATION);
            peer.send(RawPeer.bytes(new StreamFrames.Data(1, new byte[10])));
            awaitRefusals(Refusal.STREAM_VIOLATION, before + 1);
            nodeStillServes();
        }
    }

    @Test
    void moreDataThanTheRoomGrantedEndsTheStream() throws Exception {
        long before = s1.stats().refused(Refusal.STREAM_VIOLATION);
        try (RawPeer peer = new RawPeer("raw-over-credit", s1.address())) {
            peer.handshake();
            peer.send(streamRequest(peer, 1, "waitThenCount", "over-credit", 1));
            byte[] chunk = new byte[64 * 1024];
            for (int i = 0; i < 4; i++) { // exactly the initial window
                peer.send(RawPeer.bytes(new StreamFrames.Data(1, chunk)));
            }
            peer.send(RawPeer.bytes(new StreamFrames.Data(1, new byte[1]))); // one byte too many
            StreamFrames.Cancel cancel = awaitFrame(peer, StreamFrames.Cancel.class);
            assertEquals(1, cancel.stream());
            assertTrue(cancel.message().contains("more than"), cancel.message());
            ChainStreamException e = assertInstanceOf(ChainStreamException.class, awaitOutcome("over-credit"));
            assertEquals(ChainStreamException.Reason.PROTOCOL_VIOLATION, e.reason());
            awaitRefusals(Refusal.STREAM_VIOLATION, before + 1);
            assertEquals(0, s1.streamStats().bufferedBytes(), "what the stream held was dropped");
            nodeStillServes();
        }
    }

    @Test
    void aStreamThatNeverMovesIsEndedAtTheIdleTimeout() throws Exception {
        long before = s1.stats().refused(Refusal.STREAM_IDLE);
        try (RawPeer peer = new RawPeer("raw-idle", s1.address())) {
            peer.handshake();
            peer.send(streamRequest(peer, 1, "count", "idle", 1),
                    RawPeer.bytes(new StreamFrames.Data(1, new byte[10]))); // then nothing, never an end
            ChainStreamException e = assertInstanceOf(ChainStreamException.class, awaitOutcome("idle"));
            assertEquals(ChainStreamException.Reason.IDLE_TIMEOUT, e.reason(), e.getMessage());
            assertEquals(1, awaitFrame(peer, StreamFrames.Cancel.class).stream());
            awaitRefusals(Refusal.STREAM_IDLE, before + 1);
            nodeStillServes();
        }
    }

    @Test
    void thousandsOfStreamsOnOneConnectionAreRefusedPastTheLimit() throws Exception {
        long before = s2.stats().refused(Refusal.TOO_MANY_STREAMS);
        int streams = 2000;
        try (RawPeer peer = new RawPeer("raw-many", s2.address())) {
            peer.handshake();
            for (int i = 1; i <= streams; i++) { // none ends: the first 8 stay open until idle
                peer.send(streamRequest(peer, i, "count", "many-" + i, i));
            }
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
            while (s2.stats().refused(Refusal.TOO_MANY_STREAMS) < before + streams - 8 && System.nanoTime() < deadline) {
                Thread.sleep(10);
            }
            assertEquals(before + streams - 8, s2.stats().refused(Refusal.TOO_MANY_STREAMS));
            for (int i = 9; i <= streams; i++) {
                ChainStreamException e = assertInstanceOf(ChainStreamException.class, awaitOutcome("many-" + i));
                assertEquals(ChainStreamException.Reason.REFUSED, e.reason());
            }
            nodeStillServes();
            for (int i = 1; i <= 8; i++) { // the streams taken in go on as usual
                peer.send(RawPeer.bytes(new StreamFrames.Data(i, new byte[i])), RawPeer.bytes(new StreamFrames.End(i, i, null)));
            }
            for (int i = 1; i <= 8; i++) {
                assertEquals((long) i, awaitOutcome("many-" + i));
            }
        }
    }

    @Test
    void aSenderThatDisappearsEndsTheStreamWithATypedError() throws Exception {
        try (RawPeer peer = new RawPeer("raw-gone", s1.address())) {
            peer.handshake();
            peer.send(streamRequest(peer, 1, "count", "gone", 1), RawPeer.bytes(new StreamFrames.Data(1, new byte[500])));
            Thread.sleep(100);
        } // closed mid-stream
        ChainStreamException e = assertInstanceOf(ChainStreamException.class, awaitOutcome("gone"));
        assertEquals(ChainStreamException.Reason.CONNECTION_CLOSED, e.reason(), e.getMessage());
        nodeStillServes();
    }

    @Test
    void aSenderThatAbortsEndsTheStreamWithItsReason() throws Exception {
        try (RawPeer peer = new RawPeer("raw-abort", s1.address())) {
            peer.handshake();
            peer.send(streamRequest(peer, 1, "count", "abort", 1), RawPeer.bytes(new StreamFrames.Data(1, new byte[500])),
                    RawPeer.bytes(new StreamFrames.End(1, 500, "source unplugged")));
            ChainStreamException e = assertInstanceOf(ChainStreamException.class, awaitOutcome("abort"));
            assertEquals(ChainStreamException.Reason.SENDER_ABORTED, e.reason());
            assertTrue(e.getMessage().contains("source unplugged"), e.getMessage());
        }
    }
}
