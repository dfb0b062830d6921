package io.rpcc.core.internal.transport;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.embedded.EmbeddedChannel;
import io.rpcc.core.BranchId;
import io.rpcc.core.ChainErrorCode;
import io.rpcc.core.ChainState;
import io.rpcc.core.ChainingFunctionSource;
import io.rpcc.core.Metadata;
import io.rpcc.core.TypeRegistry;
import io.rpcc.core.internal.wire.ChainHeader;
import io.rpcc.core.internal.wire.ChainIdentity;
import io.rpcc.core.internal.wire.ChainLimits;
import io.rpcc.core.internal.wire.ChainRequest;
import io.rpcc.core.internal.wire.ChainSecret;
import io.rpcc.core.internal.wire.ChainSoFar;
import io.rpcc.core.internal.wire.Credit;
import io.rpcc.core.internal.wire.FrameType;
import io.rpcc.core.internal.wire.HeartbeatBudget;
import io.rpcc.core.internal.wire.Hello;
import io.rpcc.core.internal.wire.NodeAddress;
import io.rpcc.core.internal.wire.QuietFrame;
import io.rpcc.core.internal.wire.ReturnRoute;
import io.rpcc.core.internal.wire.Serialization;
import io.rpcc.core.internal.wire.TxFrames;
import io.rpcc.core.internal.wire.TxKey;
import io.rpcc.core.internal.wire.TxStamp;
import io.rpcc.core.internal.wire.WireFormat;
import java.time.Duration;
import java.util.List;
import java.util.Random;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The wire of atomic chains: the transaction stamp in a REQUEST's header (field 23) and the frames
 * VOTE, DECIDE, DECIDE_ACK and WOUND round trip; corrupt ones become typed refusals (malformed),
 * never exceptions, and the stream stays in step.
 */
class TxFramesCodecTest {
    static final int MAX = 4096;
    static final ChainSecret SECRET = ChainSecret.random();
    static final NodeAddress CLIENT = new NodeAddress("client-1", "127.0.0.1", 4000);
    static final WireLimits LIMITS = new WireLimits(new WireLimits.InboundConnectionLimits(1024, 256, 64, 60),
            new WireLimits.ConnectionTimeouts(Duration.ofSeconds(10), Duration.ofMinutes(5), Duration.ofMinutes(2),
                    Duration.ofSeconds(30)), new WireLimits.BufferLimits(1L << 20, 1L << 20, 1L << 22, 1L << 19),
            new WireLimits.ValueLimits(255, 128), new WireLimits.OutboundConnectionLimits(1024, 64));
    final WireFormat wire = new WireFormat(new Serialization(TypeRegistry.empty()));
    final EmbeddedChannel channel = new EmbeddedChannel(new FrameDecoder(wire, MAX, LIMITS, new AtomicLong()));

    TxFramesCodecTest() {
        Hello hello = new Hello("peer", "127.0.0.1", 7000, MAX);
        channel.writeInbound(wire.encode(hello, MAX));
        assertEquals(hello, channel.readInbound());
    }

    @AfterEach
    void close() {
        channel.finishAndReleaseAll();
    }

    private Object roundTrip(Object message) {
        channel.writeInbound(wire.encode(message, MAX));
        Object decoded = channel.readInbound();
        assertNotNull(decoded, "frame decoded");
        return decoded;
    }

    private static ChainHeader header() {
        return new ChainHeader(new ChainIdentity(42, SECRET, CLIENT, 3),
                new ChainSoFar(2, List.of("a"), List.of(), List.of(), Metadata.empty()), "debit",
                ChainingFunctionSource.NONE, Credit.ONE.half(), new ReturnRoute(CLIENT, List.of(), BranchId.root()),
                new ChainLimits(100, ChainHeader.NO_DEADLINE, HeartbeatBudget.NONE));
    }

    @Test
    void theStampOfAnAtomicChainRoundTripsInTheHeaderAndAPlainChainCarriesNone() {
        for (TxStamp stamp : new TxStamp[] {null, new TxStamp(false, 1, 0), new TxStamp(true, 0, Long.MIN_VALUE),
                new TxStamp(false, Long.MAX_VALUE, -1), new TxStamp(true, 123_456_789, 987_654_321_123L)}) {
            ChainHeader h = header().withTx(stamp);
            ChainRequest got = assertInstanceOf(ChainRequest.class, roundTrip(new ChainRequest(h, "p", ChainState.empty(),
                    null)));
            assertNull(got.decodeError());
            assertEquals(stamp, got.header().tx());
            assertEquals(stamp != null, got.header().atomic());
            assertEquals(stamp == null ? null : new TxKey("client-1", 42, 3), got.header().txKey());
            assertEquals("p", got.params(), "the values after field 23 are read in step");
        }
    }

    @Test
    void theStampSurvivesANewAttemptAndACredential() {
        TxStamp stamp = new TxStamp(false, 7, 9);
        ChainHeader h = header().withTx(stamp);
        assertEquals(stamp, h.withAttempt(4).tx());
        assertEquals(new TxKey("client-1", 42, 4), h.withAttempt(4).txKey());
        assertEquals(stamp, h.withBudget(5).withHeartbeat(HeartbeatBudget.NONE).tx());
    }

    @Test
    void aPlainRequestGrowsByOneByteAndAnAtomicOneByAFewMore() {
        int plain = size(new ChainRequest(header(), null, ChainState.empty(), null));
        int atomic = size(new ChainRequest(header().withTx(new TxStamp(false, 1000, 12345)), null, ChainState.empty(),
                null));
        assertTrue(atomic - plain <= 1 + 2 + 8, "the stamp costs " + (atomic - plain) + " bytes");
    }

    private int size(Object message) {
        ByteBuf b = wire.encode(message, MAX);
        try {
            return b.readableBytes();
        } finally {
            b.release();
        }
    }

    @Test
    void everyTransactionFrameRoundTrips() {
        List<TxFrames.TxFrame> frames = List.of(
                new TxFrames.Vote(new io.rpcc.core.internal.wire.ChainKey(42, SECRET), 3, Credit.ONE.half().half(), new NodeAddress("s1", "10.0.0.2", 4100), 2,
                new TxFrames.Ballot(true, null, 77, 5)),
                new TxFrames.Vote(new io.rpcc.core.internal.wire.ChainKey(42, SECRET), 1, Credit.ONE, new NodeAddress("s2", "::1", 0), 1,
                new TxFrames.Ballot(false, "service function 'debit' refused: balance too low", 0, 0)),
                new TxFrames.Decide(42, SECRET, "client-1", 3, true, null),
                new TxFrames.Decide(42, SECRET, "client-1", 1000, false, "wounded by client-2/7#1 at s1"),
                new TxFrames.Decide(42, SECRET, "client-1", 3, true, null, true),
                new TxFrames.DecideAck(42, SECRET, 3, "s1", Long.MAX_VALUE, 5),
                new TxFrames.Wound(42, SECRET, 3, "s2", "client-2/7#1"),
                new TxFrames.Query(42, SECRET, "client-1", 3, "s1"),
                new TxFrames.Query(42, SECRET, "s2", 3, "s1"));
        for (TxFrames.TxFrame f : frames) {
            assertEquals(f, roundTrip(f));
        }
        assertEquals(new TxKey("client-1", 42, 3), new TxFrames.Decide(42, SECRET, "client-1", 3, true, null).key());
        assertEquals(new TxKey("client-1", 42, 3), new TxFrames.Query(42, SECRET, "client-1", 3, "s1").key());
        assertFalse(new TxFrames.Decide(42, SECRET, "client-1", 3, true, null).fromPeer(), "the originator's");
    }

    @Test
    void aReasonLongerThanTheBoundIsCutWhenSent() {
        String longWhy = "x".repeat(TxFrames.MAX_REASON_CHARS * 2);
        TxFrames.Decide got = (TxFrames.Decide) roundTrip(new TxFrames.Decide(1, SECRET, "c", 1, false, longWhy));
        assertEquals(TxFrames.MAX_REASON_CHARS, got.why().length());
        assertTrue(got.why().endsWith("..."));
    }

    /** The bytes after the length field of {@code message}. */
    private byte[] body(Object message) {
        ByteBuf b = wire.encode(message, MAX);
        try {
            b.skipBytes(4);
            byte[] bytes = new byte[b.readableBytes()];
            b.readBytes(bytes);
            return bytes;
        } finally {
            b.release();
        }
    }

    private Object decodeBody(byte[] body) {
        ByteBuf frame = Unpooled.buffer(4 + body.length);
        frame.writeInt(body.length).writeBytes(body);
        channel.writeInbound(frame);
        return channel.readInbound();
    }

    private void assertMalformed(byte[] body, String contains) {
        QuietFrame good = new QuietFrame(5, SECRET, Credit.ONE);
        ByteBuf frame = Unpooled.buffer();
        frame.writeInt(body.length).writeBytes(body);
        channel.writeInbound(Unpooled.wrappedBuffer(frame, wire.encode(good, MAX)));
        FrameDecoder.MalformedFrame m = assertInstanceOf(FrameDecoder.MalformedFrame.class, channel.readInbound());
        assertEquals(ChainErrorCode.MALFORMED_FRAME, m.reason().code());
        assertTrue(m.reason().getMessage().contains(contains), m.reason().getMessage());
        assertEquals(good, channel.readInbound(), "the stream stays in step behind a refused frame");
    }

    @Test
    void corruptTransactionFramesAreRefusedAsMalformed() {
        // attempt 0 (the byte after the chain: version, type, chainId 1 byte, secret 16 bytes)
        byte[] decide = body(new TxFrames.Decide(1, SECRET, "c", 1, true, null));
        decide[2 + 1 + 16] = 0;
        assertMalformed(decide, "attempt 0");
        // a decision byte that is neither 0 nor 1
        byte[] decide2 = body(new TxFrames.Decide(1, SECRET, "c", 1, true, null));
        decide2[2 + 1 + 16 + 1 + 2] = 7;
        assertMalformed(decide2, "decision byte 7");
        // a peer-answer byte (the last) that is neither 0 nor 1
        byte[] decide3 = body(new TxFrames.Decide(1, SECRET, "c", 1, true, null, true));
        decide3[decide3.length - 1] = 2;
        assertMalformed(decide3, "peer answer byte 2");
        // a query without its origin
        assertMalformed(body(new TxFrames.Query(1, SECRET, "", 1, "s")), "QUERY frame without origin");
        // a vote with zero credit
        byte[] vote = body(new TxFrames.Vote(new io.rpcc.core.internal.wire.ChainKey(1, SECRET), 1, Credit.ONE, new NodeAddress("s", "h", 1), 1,
                new TxFrames.Ballot(true, null, 0, 0)));
        byte[] zero = body(new TxFrames.Vote(new io.rpcc.core.internal.wire.ChainKey(1, SECRET), 1, Credit.ONE, new NodeAddress("s", "h", 1), 1,
                new TxFrames.Ballot(true, null, 0, 0)));
        zero[2 + 1 + 16 + 1 + 2] = 0; // credit := exponent 0, length 1, numerator 0
        assertMalformed(zero, "VOTE frame with credit");
        // trailing bytes
        byte[] longer = java.util.Arrays.copyOf(vote, vote.length + 1);
        assertMalformed(longer, "trailing bytes");
        // a stamp with unknown flags (field 23 of a REQUEST: the byte before params (0) and state (0))
        byte[] request = body(new ChainRequest(header(), null, ChainState.empty(), null));
        request[request.length - 3] = 4;
        ChainRequest bad = assertInstanceOf(ChainRequest.class, decodeBody(request));
        assertNotNull(bad.decodeError(), "reported to the chain, header intact");
        assertTrue(bad.decodeError().getMessage().contains("unknown transaction flags 4"), bad.decodeError().getMessage());
    }

    @Test
    void aReasonOverTheBoundFromTheWireIsRefused() {
        TxFrames.Wound w = new TxFrames.Wound(1, SECRET, 1, "s", "y".repeat(TxFrames.MAX_REASON_CHARS));
        byte[] body = body(w);
        // append one more character to the by-string: rewrite it by hand
        byte[] head = body(new TxFrames.Wound(1, SECRET, 1, "s", "z"));
        int prefix = head.length - 2; // (a one-character string is its length byte and the character)
        ByteBuf b = Unpooled.buffer();
        b.writeBytes(head, 0, prefix);
        com.esotericsoftware.kryo.io.Output out = new com.esotericsoftware.kryo.io.Output(8192);
        out.writeString("y".repeat(TxFrames.MAX_REASON_CHARS + 1));
        b.writeBytes(out.getBuffer(), 0, out.position());
        byte[] tooLong = new byte[b.readableBytes()];
        b.readBytes(tooLong);
        assertEquals(w, decodeBody(body));
        assertMalformed(tooLong, "reason of " + (TxFrames.MAX_REASON_CHARS + 1));
    }

    @Test
    void randomBytesAfterATransactionTypeNeverThrow() {
        Random random = new Random(30);
        for (int i = 0; i < 20_000; i++) {
            int len = 2 + random.nextInt(120);
            ByteBuf buf = Unpooled.buffer(4 + len);
            buf.writeInt(len);
            buf.writeByte(FrameType.PROTOCOL_VERSION);
            buf.writeByte(FrameType.VOTE.wire() + random.nextInt(5));
            byte[] junk = new byte[len - 2];
            random.nextBytes(junk);
            buf.writeBytes(junk);
            channel.writeInbound(buf);
            Object msg = channel.readInbound();
            assertNotNull(msg);
            if (msg instanceof FrameDecoder.MalformedFrame m) {
                assertEquals(ChainErrorCode.MALFORMED_FRAME, m.reason().code());
            } else {
                assertInstanceOf(TxFrames.TxFrame.class, msg);
            }
        }
    }
}
