package io.rpcc.core.internal.wire;

import io.rpcc.core.BranchId;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.rpcc.core.ChainErrorCode;
import io.rpcc.core.TypeRegistry;
import java.util.Arrays;
import org.junit.jupiter.api.Test;

/** The WINDOW_UPDATE frame (type 7): both kinds round-trip; corrupt ones are refused; a reply knows its size. */
class WindowUpdateFrameTest {
    final WireFormat wire = new WireFormat(new Serialization(TypeRegistry.empty()));
    static final ChainSecret SECRET = ChainSecret.random();

    private Object roundTrip(Object message) {
        ByteBuf frame = wire.encode(message, 1 << 20);
        try {
            frame.skipBytes(4);
            return wire.decode(frame);
        } finally {
            frame.release();
        }
    }

    @Test
    void grantsAndRequestsRoundTrip() {
        WindowUpdateFrame grant = new WindowUpdateFrame(new ChainKey(42, SECRET), new ReplyStream(3, "s1"), true, 512,
                8L << 20, 0);
        assertEquals(grant, roundTrip(grant));
        WindowUpdateFrame ask = new WindowUpdateFrame(new ChainKey(42, SECRET), new ReplyStream(3, "s1"), false, 2, 77,
                65_566);
        assertEquals(ask, roundTrip(ask));
        WindowUpdateFrame unbounded = new WindowUpdateFrame(new ChainKey(Long.MAX_VALUE, SECRET), new ReplyStream(1, "n"),
                true, Integer.MAX_VALUE, Long.MAX_VALUE / 2, 0);
        assertEquals(unbounded, roundTrip(unbounded));
        assertEquals(FrameType.WINDOW_UPDATE, FrameType.fromWire((byte) 7));
        assertEquals(7, FrameType.WINDOW_UPDATE.wire());
    }

    @Test
    void corruptFramesAreRefused() {
        byte[] good = bytes(new WindowUpdateFrame(new ChainKey(1, SECRET), new ReplyStream(1, "a"), false, 0, 0, 10));
        byte[] badKind = good.clone();
        int kindAt = 2 + 1 + 16 + 1 + 2; // version, type, chain id (1 byte), secret, hop, host ("a": length + 1)
        assertEquals(1, badKind[kindAt]);
        badKind[kindAt] = 2;
        HopFailure f = assertThrows(HopFailure.class, () -> wire.decode(Unpooled.wrappedBuffer(badKind)));
        assertEquals(ChainErrorCode.MALFORMED_FRAME, f.code());
        byte[] trailing = Arrays.copyOf(good, good.length + 1);
        f = assertThrows(HopFailure.class, () -> wire.decode(Unpooled.wrappedBuffer(trailing)));
        assertTrue(f.getMessage().contains("trailing"), f.getMessage());
        // a grant never asks
        byte[] grantThatAsks = bytes(new WindowUpdateFrame(new ChainKey(1, SECRET), new ReplyStream(1, "a"), true, 0, 0,
                10));
        assertThrows(HopFailure.class, () -> wire.decode(Unpooled.wrappedBuffer(grantThatAsks)));
    }

    @Test
    void aDecodedReplyKnowsWhatItCostsTheWindow() {
        ByteBuf frame = wire.encode(new ReplyFrame(new ChainKey(5, SECRET), BranchId.root(), new ReplyStream(2, "b"), 0,
                "hello", null), 1 << 20);
        int onTheWire = frame.readableBytes();
        try {
            frame.skipBytes(4);
            assertEquals(onTheWire, ((ReplyFrame) wire.decode(frame)).size());
        } finally {
            frame.release();
        }
    }

    private byte[] bytes(Object message) {
        ByteBuf frame = wire.encode(message, 1 << 20);
        try {
            frame.skipBytes(4);
            byte[] out = new byte[frame.readableBytes()];
            frame.readBytes(out);
            return out;
        } finally {
            frame.release();
        }
    }
}
