package io.rpcc.server;

import io.rpcc.core.BranchId;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.rpcc.client.ChainCall;
import io.rpcc.client.RpccClient;
import io.rpcc.core.ChainErrorCode;
import io.rpcc.core.ChainContext;
import io.rpcc.core.ChainFailure;
import io.rpcc.core.ChainState;
import io.rpcc.core.ChainResult;
import io.rpcc.core.MalformedFrameException;
import io.rpcc.core.Refusal;
import io.rpcc.core.internal.wire.Credit;
import io.rpcc.core.internal.wire.ChainErrorFrame;
import io.rpcc.core.internal.wire.ChainKey;
import io.rpcc.core.internal.wire.ChainRequest;
import io.rpcc.core.internal.wire.ChainResultFrame;
import io.rpcc.core.internal.wire.ChainSecret;
import io.rpcc.core.internal.wire.Hello;
import io.rpcc.core.internal.wire.QuietFrame;
import io.rpcc.core.internal.wire.ReplyFrame;
import io.rpcc.core.internal.wire.ReplyStream;
import io.rpcc.core.testing.HostResources;
import io.rpcc.core.testing.RawPeer;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.LongSupplier;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Attacks on the wire from raw sockets, with hand-written frames: frames out of order, foreign
 * versions, class names and deep nesting in values, oversized and trickled frames, handshakes that
 * never finish, idle and flooding connections, a peer that never reads, forged results for live
 * chains and invalid origins. Each must be refused and counted, close the connection where the
 * protocol cannot go on, and leave the node serving normal chains with its threads, file
 * descriptors and heap back where they were.
 */
class HostileWireTest {
    static final AtomicInteger runs = new AtomicInteger();
    static Cluster cluster;
    static RpccServer s1;
    static RpccServer slow;
    static RpccServer few;
    static RpccServer tight;
    static RpccClient client;
    HostResources baseline;

    @BeforeAll
    static void start() {
        cluster = new Cluster();
        s1 = cluster.server("s1", b -> b
                .service("echo", p -> p)
                .service("count", p -> runs.incrementAndGet())
                .service("countAndReply", p -> {
                    ChainContext.current().preturn("reply");
                    return runs.incrementAndGet();
                })
                .service("sleep", p -> {
                    Thread.sleep(1000);
                    return p;
                })
                .service("deep", p -> nested((Integer) p))
                .service("cyclic", p -> {
                    List<Object> self = new ArrayList<>();
                    self.add(self);
                    return self;
                }));
        slow = cluster.server("slow", b -> b
                .handshakeTimeout(Duration.ofMillis(500))
                .idleTimeout(Duration.ofMillis(1500))
                .frameTimeout(Duration.ofSeconds(1))
                .maxFrameSize(64 * 1024)
                .maxPartialFrameBytes(128 * 1024)
                .service("echo", p -> p));
        few = cluster.server("few", b -> b
                .maxInboundConnections(6)
                .maxInboundConnectionsPerAddress(4)
                .service("echo", p -> p));
        tight = cluster.server("tight", b -> b
                .maxFrameSize(64 * 1024)
                .maxQueuedWriteBytes(256 * 1024) // the least allowed for 64 KiB frames
                .service("echo", p -> p)
                .service("big", p -> "x".repeat(60_000)));
        client = cluster.client();
    }

    @AfterAll
    static void stop() throws Exception {
        cluster.close();
    }

    @BeforeEach
    void baseline() {
        everyServerAnswers(); // connections and classes of a normal chain are part of the baseline
        baseline = HostResources.now();
    }

    @AfterEach
    void serversStillServeAndNothingLeaks() {
        everyServerAnswers();
        HostResources.assertBackTo(baseline, 8, 16, 48L << 20);
    }

    private static void everyServerAnswers() {
        for (String server : List.of("s1", "slow", "few", "tight")) {
            assertEquals("alive", client.call(server, "echo", "alive").join().value(), server);
        }
    }

    static Object nested(int levels) {
        Object value = "bottom";
        for (int i = 0; i < levels; i++) {
            value = new ArrayList<>(List.of(value));
        }
        return value;
    }

    private static void awaitCount(LongSupplier counter, long atLeast) throws InterruptedException {
        for (int i = 0; i < 200 && counter.getAsLong() < atLeast; i++) {
            Thread.sleep(25);
        }
        assertTrue(counter.getAsLong() >= atLeast, "expected at least " + atLeast + ", got " + counter.getAsLong());
    }

    private static InetSocketAddress at(RpccServer s) {
        return s.address();
    }

    // ------------------------------------------------------------------ order and version

    @Test
    void aRequestBeforeHelloIsRefusedUnreadAndNeverRuns() throws Exception {
        long before = s1.stats().refused(Refusal.FRAME_BEFORE_HELLO);
        int runsBefore = runs.get();
        try (RawPeer p = new RawPeer("early", at(s1))) {
            p.send(RawPeer.bytes(p.request(1, "count", null)));
            assertTrue(p.closedWithin(5000), "connection closed");
        }
        assertEquals(before + 1, s1.stats().refused(Refusal.FRAME_BEFORE_HELLO));
        assertEquals(runsBefore, runs.get(), "the request did not run");
    }

    @Test
    void aForeignVersionEndsTheConnectionAndTheRequestBehindItInTheSameWriteNeverRuns() throws Exception {
        long before = s1.stats().refused(Refusal.PROTOCOL_VERSION);
        int runsBefore = runs.get();
        try (RawPeer p = new RawPeer("v99", at(s1))) {
            p.handshake();
            byte[] foreign = {0, 0, 0, 3, 99, 2, 0};
            byte[] request = RawPeer.bytes(p.request(1, "count", null));
            byte[] both = new byte[foreign.length + request.length];
            System.arraycopy(foreign, 0, both, 0, foreign.length);
            System.arraycopy(request, 0, both, foreign.length, request.length);
            p.send(both);
            assertTrue(p.closedWithin(5000), "connection closed");
        }
        assertEquals(before + 1, s1.stats().refused(Refusal.PROTOCOL_VERSION));
        Thread.sleep(200);
        assertEquals(runsBefore, runs.get(), "the request behind the foreign frame did not run");
    }

    @Test
    void aSecondHelloIsRefused() throws Exception {
        long before = s1.stats().refused(Refusal.SECOND_HELLO);
        try (RawPeer p = new RawPeer("twice", at(s1))) {
            p.handshake().hello();
            assertTrue(p.closedWithin(5000), "connection closed");
        }
        assertEquals(before + 1, s1.stats().refused(Refusal.SECOND_HELLO));
    }

    @Test
    void oversizedHelloFieldsAndLengthsAreRefused() throws Exception {
        long before = s1.stats().refused(Refusal.INVALID_HELLO);
        try (RawPeer p = new RawPeer("x".repeat(10_000), at(s1))) {
            p.hello();
            assertTrue(p.closedWithin(5000), "a 10,000-character name: closed");
        }
        try (RawPeer p = new RawPeer("huge", at(s1))) {
            p.send(new byte[] {0x7f, (byte) 0xff, (byte) 0xff, (byte) 0xff}); // a 2 GB "HELLO"
            assertTrue(p.closedWithin(5000), "a 2 GB HELLO: closed from its length alone");
        }
        try (RawPeer p = new RawPeer("badhost", at(s1))) {
            p.send(RawPeer.bytes(new Hello("n", "host name; rm -rf", 80, 1 << 20)));
            assertTrue(p.closedWithin(5000), "an invalid host: closed");
        }
        assertEquals(before + 3, s1.stats().refused(Refusal.INVALID_HELLO));
    }

    // ------------------------------------------------------------------ values

    @Test
    void aClassNameInAValueIsRefusedAndTheOriginatorToldWithoutAnOracle() throws Exception {
        long before = s1.stats().refused(Refusal.CLASS_NAME);
        List<String> messages = new ArrayList<>();
        try (RawPeer p = new RawPeer("names", at(s1))) {
            p.handshake();
            for (String className : List.of("java.lang.ProcessBuilder", "com.example.DoesNotExist")) {
                byte[] name = className.getBytes(StandardCharsets.US_ASCII);
                byte[] tail = new byte[2 + name.length + 1]; // NAME tag, name id 0, ASCII name; then state: empty
                tail[0] = 1;
                System.arraycopy(name, 0, tail, 2, name.length);
                tail[1 + name.length] |= (byte) 0x80;
                p.send(p.requestEndingWith(7, "echo", tail));
                ChainErrorFrame error = assertInstanceOf(ChainErrorFrame.class, p.read());
                assertEquals(ChainErrorCode.MALFORMED_FRAME, error.code());
                assertEquals("s1", error.failure().host());
                messages.add(error.failure().message());
            }
        }
        assertTrue(messages.get(0).contains("names a class"), messages.get(0));
        assertEquals(messages.get(0), messages.get(1), "the same answer whether the class exists or not");
        assertEquals(before + 2, s1.stats().refused(Refusal.CLASS_NAME));
    }

    @Test
    void aFrameNested50000DeepIsRefusedWithoutOverflowingTheEventLoopStack() throws Exception {
        long before = s1.stats().refused(Refusal.VALUE_TOO_DEEP);
        try (RawPeer p = new RawPeer("deep", at(s1))) {
            p.handshake();
            int levels = 50_000;
            byte[] tail = new byte[2 * levels + 2]; // Object[] (id 29, written 31) holding one element, 50,000 deep
            for (int i = 0; i < levels; i++) {
                tail[2 * i] = 31;
                tail[2 * i + 1] = 2;
            }
            p.send(p.requestEndingWith(8, "echo", tail));
            ChainErrorFrame error = assertInstanceOf(ChainErrorFrame.class, p.read());
            assertEquals(ChainErrorCode.MALFORMED_FRAME, error.code());
            assertTrue(error.failure().message().contains("nested more than 128 levels"), error.failure().message());
        }
        assertEquals(before + 1, s1.stats().refused(Refusal.VALUE_TOO_DEEP));
    }

    @Test
    void tooDeepOrCyclicValuesFailWithTypedErrorsAtTheSenderAndReachTheOriginator() {
        Throwable params = assertThrows(Throwable.class, () -> client.call("s1", "echo", nested(5000)).join());
        assertInstanceOf(MalformedFrameException.class, unwrapped(params));

        for (Object[] c : new Object[][] {{"deep", 5000}, {"cyclic", 0}}) {
            Throwable e = assertThrows(Throwable.class, () -> client.call("s1", (String) c[0], c[1]).join());
            MalformedFrameException m = assertInstanceOf(MalformedFrameException.class, unwrapped(e));
            assertEquals("s1", m.host(), "the failing hop is named");
            assertTrue(m.remoteMessage().contains("cannot serialize the chain's result")
                    && m.remoteMessage().contains("nested more than 128 levels"), m.remoteMessage());
        }
    }

    private static Throwable unwrapped(Throwable e) {
        while (e instanceof CompletionException && e.getCause() != null) {
            e = e.getCause();
        }
        return e;
    }

    @Test
    void aRequestWithAnInvalidOriginIsDroppedAndTheConnectionGoesOn() throws Exception {
        long before = s1.stats().refused(Refusal.INVALID_ORIGIN);
        int runsBefore = runs.get();
        try (RawPeer p = new RawPeer("origin", at(s1))) {
            p.handshake();
            for (String host : List.of("evil host", "a/../b", "x".repeat(400), "")) {
                p.send(RawPeer.bytes(new ChainRequest(p.header(1, "count", host, 80), null,
                        ChainState.empty(), null)));
            }
            p.send(RawPeer.bytes(new ChainRequest(p.header(2, "count", "127.0.0.1", 0), null,
                    ChainState.empty(), null)));
            p.send(RawPeer.bytes(p.request(3, "count", null))); // a valid one: answered on this connection
            ChainResultFrame result = assertInstanceOf(ChainResultFrame.class, p.read());
            assertEquals(3, result.chainId());
        }
        assertEquals(before + 5, s1.stats().refused(Refusal.INVALID_ORIGIN));
        assertEquals(runsBefore + 1, runs.get(), "only the valid request ran");
    }

    @Test
    void aRequestWithZeroCreditIsRefusedAsMalformedAndNeverRuns() throws Exception {
        // a hop carrying no credit could return none; splitting it for its replies failed on an rpcc thread
        long before = s1.stats().refused(Refusal.MALFORMED_FRAME);
        int runsBefore = runs.get();
        try (RawPeer p = new RawPeer("zero", at(s1))) {
            p.handshake();
            p.send(RawPeer.bytes(p.request(1, "countAndReply", null, Credit.ZERO)));
            p.send(RawPeer.bytes(p.request(2, "count", null))); // a valid one behind it: answered
            ChainResultFrame result = assertInstanceOf(ChainResultFrame.class, p.read());
            assertEquals(2, result.chainId());
        }
        awaitCount(() -> s1.stats().refused(Refusal.MALFORMED_FRAME), before + 1);
        assertEquals(runsBefore + 1, runs.get(), "only the valid request ran");
    }

    // ------------------------------------------------------------------ time and bytes

    @Test
    void aPeerThatNeverSendsHelloIsClosedAtTheHandshakeTimeout() throws Exception {
        long before = slow.stats().refused(Refusal.HANDSHAKE_TIMEOUT);
        try (RawPeer p = new RawPeer("mute", at(slow))) {
            p.send(new byte[] {0, 0}); // half a length field, then nothing
            assertTrue(p.closedWithin(5000), "closed");
        }
        assertEquals(before + 1, slow.stats().refused(Refusal.HANDSHAKE_TIMEOUT));
    }

    @Test
    void anIdleConnectionIsClosed() throws Exception {
        long before = slow.stats().refused(Refusal.IDLE_TIMEOUT);
        try (RawPeer p = new RawPeer("idle", at(slow))) {
            p.handshake();
            long start = System.nanoTime();
            // a GOAWAY at the idle timeout (1.5 s), which this peer never answers: closed at the ping timeout (5 s) after
            assertTrue(p.closedWithin(12_000), "closed");
            assertTrue(System.nanoTime() - start > 1_000_000_000L, "not before the idle timeout");
        }
        awaitCount(() -> slow.stats().refused(Refusal.IDLE_TIMEOUT), before + 1);
    }

    @Test
    void aTrickledFrameIsClosedAtTheFrameTimeout() throws Exception {
        long before = slow.stats().refused(Refusal.SLOW_FRAME);
        try (RawPeer p = new RawPeer("trickle", at(slow))) {
            p.handshake();
            p.send(new byte[] {0, 0, (byte) 0xf0, 0, 1, 2}); // a 61,440-byte REQUEST ...
            boolean closed = false;
            for (int i = 0; i < 40 && !closed; i++) { // ... one byte every 100 ms: never idle, never complete
                try {
                    p.send(new byte[] {0});
                } catch (IOException e) {
                    closed = true;
                }
                Thread.sleep(100);
            }
            assertTrue(closed || p.closedWithin(2000), "closed");
        }
        assertEquals(before + 1, slow.stats().refused(Refusal.SLOW_FRAME));
    }

    @Test
    void partFramesFromManyPeersAreBoundedNodeWide() throws Exception {
        long before = slow.stats().refused(Refusal.PARTIAL_FRAMES_OVER_LIMIT);
        List<RawPeer> peers = new ArrayList<>();
        try {
            for (int i = 0; i < 3; i++) { // 3 x 60 KB of 64 KB frames, against a node-wide 128 KB
                RawPeer p = new RawPeer("part" + i, at(slow)).handshake();
                peers.add(p);
                byte[] part = new byte[60_000];
                part[2] = (byte) 0xff; // length 65,280
                part[4] = 1;
                part[5] = 2;
                p.send(part);
            }
            awaitCount(() -> slow.stats().refused(Refusal.PARTIAL_FRAMES_OVER_LIMIT), before + 1);
            assertTrue(peers.get(2).closedWithin(5000), "the peer that went over is closed");
        } finally {
            for (RawPeer p : peers) {
                p.close();
            }
        }
    }

    // ------------------------------------------------------------------ floods

    @Test
    void connectionFloodsAreCappedPerAddressAndPerNode() throws Exception {
        long perAddress = few.stats().refused(Refusal.TOO_MANY_CONNECTIONS_FROM_ADDRESS);
        long perNode = few.stats().refused(Refusal.TOO_MANY_CONNECTIONS);
        List<RawPeer> peers = new ArrayList<>();
        try {
            for (int i = 0; i < 10; i++) { // the client already holds one from 127.0.0.1: 3 more fit
                peers.add(new RawPeer("flood" + i, at(few)));
            }
            awaitCount(() -> few.stats().refused(Refusal.TOO_MANY_CONNECTIONS_FROM_ADDRESS), perAddress + 7);
            for (int i = 0; i < 5; i++) { // another address: 2 more fit in the node's 6
                peers.add(new RawPeer("other" + i, at(few), InetAddress.getByName("127.0.0.2")));
            }
            awaitCount(() -> few.stats().refused(Refusal.TOO_MANY_CONNECTIONS), perNode + 3);
            assertEquals(perAddress + 7, few.stats().refused(Refusal.TOO_MANY_CONNECTIONS_FROM_ADDRESS));
        } finally {
            for (RawPeer p : peers) {
                p.close();
            }
        }
        Thread.sleep(300); // the node counts the closed connections out
    }

    @Test
    void aPeerThatSendsRequestsAndNeverReadsIsCutOffAndOthersKeepTheirLatency() throws Exception {
        long before = tight.stats().refused(Refusal.WRITE_QUEUE_FULL);
        try (RawPeer p = new RawPeer("deaf", at(tight))) {
            p.listener.setReceiveBufferSize(4096); // for the node's connection back, where results go
            p.handshake();
            byte[] request = RawPeer.bytes(p.request(1, "big", null));
            for (int i = 0; i < 400; i++) { // 400 results of 60 KB (24 MB) that it never reads
                p.send(request);
            }
            p.backChannel(); // answers the node's HELLO on the connection back, then reads nothing
            long worst = 0;
            for (int i = 0; i < 20; i++) {
                long start = System.nanoTime();
                assertEquals(i, client.call("tight", "echo", i).join().value());
                worst = Math.max(worst, System.nanoTime() - start);
            }
            assertTrue(worst < 1_000_000_000L, "a healthy chain took " + worst / 1_000_000 + " ms");
            awaitCount(() -> tight.stats().refused(Refusal.WRITE_QUEUE_FULL), before + 1);
            assertTrue(p.closedWithin(10_000), "the deaf peer is closed");
        }
    }

    // ------------------------------------------------------------------ forgery

    @Test
    void forgedResultsErrorsRepliesAndQuietsForALiveChainAreDroppedAndTheForgerCutOff() throws Exception {
        long before = client.stats().refused(Refusal.FORGED_FRAME);
        long cutOff = client.stats().refused(Refusal.TOO_MANY_BAD_FRAMES);
        CompletableFuture<ChainResult> live = client.startChain(ChainCall.to("s1", "sleep").params("genuine"));
        try (RawPeer p = new RawPeer("forger", client.address())) {
            p.handshake();
            try {
                for (long id = 1; id <= 200; id++) { // every id the client may have issued, each with a guessed secret
                    ChainSecret guess = ChainSecret.random();
                    p.send(RawPeer.bytes(new ReplyFrame(new ChainKey(id, guess), BranchId.root(), new ReplyStream(1, "s1"), 0,
                                    "forged", null)),
                            RawPeer.bytes(new ChainResultFrame(new ChainKey(id, guess), List.of("s1"), List.of(), List.of(),
                                    "forged", Credit.ONE, null)),
                            RawPeer.bytes(new ChainErrorFrame(id, guess, ChainErrorCode.INTERNAL, new ChainFailure("x", "forged",
                                    "s1", 1, List.of(), List.of(), List.of(), List.of()), Credit.ONE)),
                            RawPeer.bytes(new QuietFrame(id, guess, Credit.ONE)));
                }
            } catch (IOException e) {
                // cut off (below)
            }
            assertTrue(p.closedWithin(5000), "the forger is cut off after 64 forged frames");
        }
        awaitCount(() -> client.stats().refused(Refusal.TOO_MANY_BAD_FRAMES), cutOff + 1);
        assertEquals(before + 65, client.stats().refused(Refusal.FORGED_FRAME), "65 forged frames read, none after");
        assertEquals("genuine", live.get().value(), "the live chain got its own result");
        try (RawPeer p = new RawPeer("forger2", client.address())) {
            p.handshake();
            ChainSecret guess = ChainSecret.random();
            p.send(RawPeer.bytes(new QuietFrame(Long.MAX_VALUE, guess, Credit.ONE))); // an id never issued
            awaitCount(() -> client.stats().refused(Refusal.FORGED_FRAME), before + 66);
        }
        assertEquals(0, client.chainsInFlight());
    }
}
