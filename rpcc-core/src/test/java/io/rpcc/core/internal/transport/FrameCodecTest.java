package io.rpcc.core.internal.transport;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.embedded.EmbeddedChannel;
import io.netty.handler.codec.TooLongFrameException;
import io.rpcc.core.ChainFailure;
import io.rpcc.core.ChainState;
import io.rpcc.core.ChainingFunctionSource;
import io.rpcc.core.ConsoleLine;
import io.rpcc.core.HopTiming;
import io.rpcc.core.TypeRegistry;
import io.rpcc.core.internal.chain.Credit;
import io.rpcc.core.internal.wire.ChainErrorFrame;
import io.rpcc.core.internal.wire.QuietFrame;
import io.rpcc.core.internal.wire.ReplyFrame;
import io.rpcc.core.internal.wire.ChainHeader;
import io.rpcc.core.internal.wire.ChainRequest;
import io.rpcc.core.internal.wire.ChainResultFrame;
import io.rpcc.core.internal.wire.ErrorCode;
import io.rpcc.core.internal.wire.Hello;
import io.rpcc.core.internal.wire.HopFailure;
import io.rpcc.core.internal.wire.Serialization;
import io.rpcc.core.internal.wire.WireFormat;
import java.math.BigDecimal;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.UUID;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** The frame codec: round trips, malformed and oversized frames, unregistered types. No buffer may leak. */
class FrameCodecTest {
    record Order(String sku, int qty, List<String> tags) {
    }

    record Blob(String name, byte[] data, List<String> tags) {
    }

    static final int MAX = 4096;
    final WireFormat wire = new WireFormat(new Serialization(TypeRegistry.of(Order.class, Blob.class)));
    final WireFormat bare = new WireFormat(new Serialization(TypeRegistry.empty()));
    final EmbeddedChannel channel = new EmbeddedChannel(new FrameDecoder(wire, MAX));

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

    private static ChainHeader header(String function) {
        return new ChainHeader(42, "client-1", "127.0.0.1", 4000, 3, 2000, List.of("a", "b"),
                List.of(new ConsoleLine(1, "a", "chaining", "hi")),
                List.of(new HopTiming(1, "a", "f", 1, 2, 3, 4, "a")), function,
                ChainingFunctionSource.java("public class X {}"), Credit.ONE.half().half());
    }

    @Test
    void everyFrameTypeRoundTrips() {
        Hello hello = new Hello("node", "10.0.0.1", 7000, 1 << 20);
        assertEquals(hello, roundTrip(hello));

        Map<String, Object> map = new HashMap<>();
        map.put("when", Instant.ofEpochSecond(1_700_000_000));
        map.put("amount", new BigDecimal("12.50"));
        map.put("id", new UUID(1, 2));
        map.put("set", Set.of(1, 2, 3));
        Order order = new Order("A-1", 3, List.of("x", "y"));
        ChainRequest request = new ChainRequest(header("lookup"), order, ChainState.of("m", map, "n", null), null);
        ChainRequest got = (ChainRequest) roundTrip(request);
        assertNull(got.decodeError(), () -> String.valueOf(got.decodeError()));
        assertEquals(request.header(), got.header());
        assertEquals(order, got.params());
        assertEquals(request.state(), got.state());

        Credit odd = Credit.ONE.half().half().plus(Credit.ONE.half().half().half()); // 3/8
        ChainResultFrame result = new ChainResultFrame(7, List.of("a"), List.of(), List.of(), new int[] {1, 2}, odd, null);
        ChainResultFrame gotResult = (ChainResultFrame) roundTrip(result);
        assertEquals(7, gotResult.chainId());
        assertEquals(2, ((int[]) gotResult.value())[1]);
        assertEquals(odd, gotResult.credit());

        ChainErrorFrame error = new ChainErrorFrame(9, ErrorCode.HOP_UNREACHABLE, new ChainFailure("n", "m", "h", 2,
                List.of("a", "h"), List.of("d"), List.of(), List.of()), Credit.ONE);
        assertEquals(error, roundTrip(error));

        ReplyFrame reply = (ReplyFrame) roundTrip(new ReplyFrame(3, 2, "b", order, null));
        assertEquals(order, reply.value());
        assertEquals(2, reply.hop());
        assertEquals("b", reply.host());

        Credit tiny = Credit.ONE;
        for (int i = 0; i < 3000; i++) {
            tiny = tiny.half();
        }
        QuietFrame quiet = new QuietFrame(4, tiny);
        assertEquals(quiet, roundTrip(quiet));
    }

    @Test
    void nullArraysAndCollectionsInsideValuesRoundTrip() {
        ChainRequest request = new ChainRequest(header("f"), new Blob("n", null, null), ChainState.of("b",
                new Blob("m", new byte[] {1, 2}, List.of())), null);
        ChainRequest got = (ChainRequest) roundTrip(request);
        assertNull(got.decodeError(), () -> String.valueOf(got.decodeError()));
        Blob params = (Blob) got.params();
        assertNull(params.data());
        assertNull(params.tags());
        assertEquals(2, ((Blob) got.state().get("b")).data()[1]);
    }

    @Test
    void garbageIsRejectedAndTheStreamStaysInStep() {
        byte[][] bad = {
                {0, 0, 0, 5, 1, 99, 1, 2, 3},                          // unknown type
                {0, 0, 0, 3, 9, 2, 0},                                  // unknown version
                {0, 0, 0, 1, 1},                                        // too short for a type
                {0, 0, 0, 6, 1, 2, (byte) 0xff, (byte) 0xff, (byte) 0xff, (byte) 0xff}, // truncated header
                {0, 0, 0, 8, 1, 3, 1, (byte) 0xff, (byte) 0xff, (byte) 0xff, (byte) 0xff, 0x0f}, // huge list length
        };
        Hello good = new Hello("n", "h", 1, 2);
        for (byte[] frame : bad) {
            ByteBuf both = Unpooled.wrappedBuffer(Unpooled.wrappedBuffer(frame), wire.encode(good, MAX));
            channel.writeInbound(both); // a bad frame and a good one in the same read
            FrameDecoder.MalformedFrame m = assertInstanceOf(FrameDecoder.MalformedFrame.class, channel.readInbound());
            assertEquals(ErrorCode.MALFORMED_FRAME, m.reason().code());
            assertEquals(good, channel.readInbound(), "the good frame behind a bad one decodes in the same read");
        }
    }

    @Test
    @org.junit.jupiter.api.Timeout(60) // a hang guard: a declared length that slips through allocates gigabytes
    void randomBytesAreRejectedQuicklyWithoutHugeAllocations() {
        Random random = new Random(7);
        for (int i = 0; i < 20_000; i++) {
            int len = 2 + random.nextInt(200);
            ByteBuf buf = Unpooled.buffer(4 + len);
            buf.writeInt(len);
            buf.writeByte(1);
            buf.writeByte(1 + random.nextInt(6));
            byte[] body = new byte[len - 2];
            random.nextBytes(body);
            buf.writeBytes(body);
            channel.writeInbound(buf); // never throws: every frame becomes a message or a MalformedFrame
            Object msg = channel.readInbound();
            assertNotNull(msg);
            if (msg instanceof FrameDecoder.MalformedFrame m) {
                assertEquals(ErrorCode.MALFORMED_FRAME, m.reason().code());
            }
        }
        Hello after = new Hello("n", "h", 1, 2);
        assertEquals(after, roundTrip(after));
    }

    @Test
    void hugeDeclaredLengthsAreRefusedBeforeAllocating() {
        // A valid REQUEST whose params are null and state empty ends with the bytes 0, 0. Replace them
        // with "a byte[] (id 20, written as 22) / an ArrayList (id 30, written as 32) of 2^31 - 2 elements".
        for (int classId : new int[] {22, 32}) { // (the request ends: ... credit, params = 0, state = 0)
            ByteBuf valid = wire.encode(new ChainRequest(header("f"), null, ChainState.empty(), null), MAX);
            byte[] bytes = new byte[valid.readableBytes()];
            valid.readBytes(bytes);
            valid.release();
            byte[] hostile = java.util.Arrays.copyOf(bytes, bytes.length + 6);
            int at = bytes.length - 2;
            byte[] tail = {(byte) classId, (byte) 0xff, (byte) 0xff, (byte) 0xff, (byte) 0xff, 0x07, 0, 0};
            System.arraycopy(tail, 0, hostile, at, tail.length);
            int length = hostile.length - 4;
            hostile[0] = (byte) (length >>> 24);
            hostile[1] = (byte) (length >>> 16);
            hostile[2] = (byte) (length >>> 8);
            hostile[3] = (byte) length;
            channel.writeInbound(Unpooled.wrappedBuffer(hostile));
            ChainRequest got = channel.readInbound();
            assertEquals("f", got.header().serviceFunction());
            assertNotNull(got.decodeError(), "class id " + classId);
            assertTrue(got.decodeError().getMessage().contains("corrupt length"), got.decodeError().getMessage());
        }
    }

    @Test
    void oversizedFrameIsDiscardedWithoutBufferingIt() {
        ByteBuf huge = Unpooled.buffer();
        huge.writeInt(MAX + 100);
        huge.writeBytes(new byte[MAX + 100]);
        assertThrows(TooLongFrameException.class, () -> channel.writeInbound(huge));
        Hello after = new Hello("n", "h", 1, 2);
        assertEquals(after, roundTrip(after), "the oversized frame's bytes were skipped");
    }

    @Test
    void encodingOverTheLimitIsATypedFailure() {
        ChainRequest request = new ChainRequest(header("f"), "x".repeat(MAX), ChainState.empty(), null);
        HopFailure e = assertThrows(HopFailure.class, () -> wire.encode(request, MAX));
        assertEquals(ErrorCode.FRAME_TOO_LARGE, e.code());
        assertTrue(e.getMessage().contains("maximum frame size of 4096 bytes"), e.getMessage());
    }

    @Test
    void unregisteredClassIsNamedWhenEncoding() {
        ChainRequest request = new ChainRequest(header("f"), new ArrayList<>(List.of(new Object() {
        })), ChainState.empty(), null);
        HopFailure e = assertThrows(HopFailure.class, () -> wire.encode(request, MAX));
        assertEquals(ErrorCode.UNREGISTERED_TYPE, e.code());
        assertTrue(e.getMessage().contains("FrameCodecTest$1 is not registered"), e.getMessage());
    }

    @Test
    void unknownTypeIdIsReportedWithTheHeaderIntact() {
        EmbeddedChannel bareChannel = new EmbeddedChannel(new FrameDecoder(bare, MAX));
        try {
            ChainRequest request = new ChainRequest(header("f"), new Order("a", 1, List.of()), ChainState.empty(), null);
            bareChannel.writeInbound(wire.encode(request, MAX));
            ChainRequest got = bareChannel.readInbound();
            assertEquals(request.header(), got.header(), "the header is readable, so the originator can be told");
            assertEquals(ErrorCode.MALFORMED_FRAME, got.decodeError().code());
            assertTrue(got.decodeError().getMessage().contains("type id " + TypeRegistry.nameDerivedId(Order.class)
                    + " is not registered on this node"), got.decodeError().getMessage());
        } finally {
            bareChannel.finishAndReleaseAll();
        }
    }

    @Test
    void framesSplitAcrossReadsAreReassembled() {
        ByteBuf frame = wire.encode(new ChainRequest(header("f"), "payload", ChainState.of("k", 1), null), MAX);
        while (frame.isReadable()) {
            channel.writeInbound(frame.readRetainedSlice(Math.min(3, frame.readableBytes())));
        }
        frame.release();
        ChainRequest got = channel.readInbound();
        assertEquals("payload", got.params());
    }

    @Test
    void typeRegistryRejectsIdCollisionsAndBadIds() {
        assertThrows(IllegalArgumentException.class, () -> TypeRegistry.builder().register(Order.class, 5));
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> TypeRegistry.builder().register(Order.class, 150).register(String.class, 150));
        assertTrue(e.getMessage().contains("already used by"), e.getMessage());
    }
}
