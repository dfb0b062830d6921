package io.rpcc.core.internal.transport;

import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelHandlerContext;
import io.netty.handler.codec.LengthFieldBasedFrameDecoder;
import io.rpcc.core.internal.wire.HopFailure;
import io.rpcc.core.internal.wire.WireFormat;

/**
 * Splits the byte stream into length-prefixed frames (rejecting frames over the node's maximum
 * size without buffering them) and decodes each into an rpcc message. A frame that cannot be
 * decoded raises a {@link io.netty.handler.codec.DecoderException}; the stream stays in step, so
 * the connection goes on serving.
 */
final class FrameDecoder extends LengthFieldBasedFrameDecoder {
    private final WireFormat wire;

    FrameDecoder(WireFormat wire, int maxFrameSize) {
        super(maxFrameSize + 4, 0, 4, 0, 4, true);
        this.wire = wire;
    }

    @Override
    protected Object decode(ChannelHandlerContext ctx, ByteBuf in) throws Exception {
        ByteBuf frame = (ByteBuf) super.decode(ctx, in);
        if (frame == null) {
            return null;
        }
        try {
            return wire.decode(frame);
        } catch (HopFailure e) {
            // Passed on as a message rather than thrown, so the frames behind it in the same read
            // are decoded now instead of waiting for the next read.
            return new MalformedFrame(e);
        } finally {
            frame.release();
        }
    }

    /** A frame that could not be decoded, and why. */
    record MalformedFrame(HopFailure reason) {
    }
}
