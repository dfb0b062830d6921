package io.rpcc.core.internal.transport;

import io.netty.buffer.ByteBuf;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.handler.codec.LengthFieldBasedFrameDecoder;
import io.netty.util.concurrent.ScheduledFuture;
import io.rpcc.core.Refusal;
import io.rpcc.core.internal.wire.ChainHeader;
import io.rpcc.core.internal.wire.ChainRequest;
import io.rpcc.core.internal.wire.FrameType;
import io.rpcc.core.internal.wire.Hello;
import io.rpcc.core.internal.wire.HopFailure;
import io.rpcc.core.internal.wire.NodeAddress;
import io.rpcc.core.internal.wire.ReturnPoint;
import io.rpcc.core.internal.wire.VersionRange;
import io.rpcc.core.internal.wire.WireFormat;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Splits the byte stream into length-prefixed frames (rejecting frames over the node's maximum
 * size without buffering them) and decodes each into an rpcc message, enforcing the order of the
 * protocol and the node's {@link WireLimits}:
 *
 * <ul>
 *   <li>The first frame must be a HELLO of at most {@link WireLimits#maxHelloFrameBytes} bytes; any
 *       other frame type, HELLO layout (a node of protocol version 1 or 2) or size is refused from
 *       its first bytes, before the frame is buffered or decoded. A HELLO whose version range has
 *       no version in common with this node's ({@link VersionRange#SUPPORTED}) is refused as
 *       {@link Refusal#PROTOCOL_VERSION}, naming both ranges. A second HELLO, a later frame of
 *       another version than the one agreed, or an invalid HELLO is refused too. Such a refusal
 *       ends the connection: the decoder discards everything after it, in the same read and later.</li>
 *   <li>A REQUEST whose originator could not be answered (invalid name, host or port) is dropped.</li>
 *   <li>A frame must arrive within {@link WireLimits#frameTimeout} of its first bytes, and the
 *       node's connections together hold at most {@link WireLimits#maxPartialFrameBytes} of
 *       partly received frames.</li>
 * </ul>
 *
 * Refusals are passed on as {@link Refused} messages for the handler to count, log and act on. A
 * frame that cannot be decoded after the handshake becomes a {@link MalformedFrame}: the stream
 * stays in step, so the connection goes on serving, up to the node's limit of bad frames per
 * connection ({@link BadFrames}). Once the connection is closed, nothing more is decoded.
 */
final class FrameDecoder extends LengthFieldBasedFrameDecoder {
    private final WireFormat wire;
    private final WireLimits limits;
    private final AtomicLong partialBytes;
    private boolean helloSeen;
    /** The protocol version agreed with the peer: the version byte of every frame after the HELLO. */
    private byte agreed;
    private boolean stopped;
    /** Bytes of a partly received frame this connection holds, as counted in {@link #partialBytes}. */
    private int held;
    /** When the frame in progress began ({@link System#nanoTime()}), or 0 between frames. */
    private long partialSince;
    /** When the bytes being decoded were read; when the frame being decoded began to be read (0: none begun). */
    private long readNanos;
    private long frameStartNanos;
    private ScheduledFuture<?> slowFrameCheck;
    /** The connection's bad-frame allowance, looked up once (it is set before this decoder is added). */
    private BadFrames badFrames;

    /**
     * A decoder for one connection of a node whose largest frame is {@code maxFrameSize}, counting
     * the bytes of partial frames in {@code partialBytes}, shared by the node's connections.
     */
    FrameDecoder(WireFormat wire, int maxFrameSize, WireLimits limits, AtomicLong partialBytes) {
        super(maxFrameSize + 4, 0, 4, 0, 4, true);
        this.wire = wire;
        this.limits = limits;
        this.partialBytes = partialBytes;
    }

    /** {@link BadFrames#cutOff(Channel)}, its allowance looked up on the first frame only. */
    private boolean cutOff(Channel ch) {
        BadFrames bad = badFrames;
        if (bad == null) {
            bad = BadFrames.of(ch);
            if (bad == null) {
                return false;
            }
            badFrames = bad;
        }
        return bad.isCutOff();
    }

    @Override
    protected Object decode(ChannelHandlerContext ctx, ByteBuf in) throws Exception {
        // (closed, or cut off and its close on its way: what it sent after, in the same read too, costs nothing)
        if (stopped || !ctx.channel().isActive() || cutOff(ctx.channel())) {
            in.skipBytes(in.readableBytes());
            return null;
        }
        if (!helloSeen) {
            Object early = checkHandshakeStart(in);
            if (early != null) {
                return stop(in, early);
            }
        }
        if (frameStartNanos == 0 && in.isReadable()) {
            frameStartNanos = readNanos != 0 ? readNanos : System.nanoTime();
        }
        ByteBuf frame = (ByteBuf) super.decode(ctx, in);
        if (frame == null) {
            return null;
        }
        long startedNanos = frameStartNanos;
        frameStartNanos = 0; // the next frame's first bytes are those after this one
        partialSince = 0; // a frame is complete: the clock for the next one starts with its first bytes
        try {
            if (helloSeen && frame.readableBytes() >= 2 && frame.getByte(frame.readerIndex() + 1) == FrameType.HELLO.wire()) {
                return stop(in, new Refused(Refusal.SECOND_HELLO, "a second HELLO on the connection", true));
            }
            if (helloSeen && frame.readableBytes() >= 1 && frame.getByte(frame.readerIndex()) != agreed) {
                return stop(in, new Refused(Refusal.PROTOCOL_VERSION, "a frame of protocol version "
                        + frame.getByte(frame.readerIndex()) + " on a connection that agreed on version " + agreed, true));
            }
            Object message;
            try {
                message = wire.decode(frame);
            } catch (HopFailure e) {
                if (!helloSeen) {
                    return stop(in, new Refused(Refusal.INVALID_HELLO, "a HELLO that cannot be decoded: "
                            + e.getMessage(), true));
                }
                // Passed on as a message rather than thrown, so the frames behind it in the same read
                // are decoded now instead of waiting for the next read.
                return new MalformedFrame(e);
            }
            return switch (message) {
                case Hello h -> accept(in, h);
                case ChainRequest r -> hasValidOrigin(r.header()) ? r.arrivedAt(startedNanos) : new Refused(Refusal.INVALID_ORIGIN,
                        "a REQUEST whose originator or reply-to node cannot be answered (name, host or port invalid)", false);
                default -> message;
            };
        } finally {
            frame.release();
        }
    }

    /** Refuses a connection's first frame from its first bytes: another version, type or too large. */
    private Object checkHandshakeStart(ByteBuf in) {
        int at = in.readerIndex();
        int readable = in.readableBytes();
        byte version = readable >= 5 ? in.getByte(at + 4) : 0;
        if (readable >= 5 && (version < FrameType.HELLO_VERSION || version > FrameType.PROTOCOL_VERSION)) {
            return olderHello(version); // (a version this node knows: an rpcc frame, refused by its type below)
        }
        if (readable >= 6 && in.getByte(at + 5) != FrameType.HELLO.wire()) {
            return new Refused(Refusal.FRAME_BEFORE_HELLO, "a frame of type " + in.getByte(at + 5)
                    + " before the HELLO; refused unread", true);
        }
        if (readable >= 4) {
            long length = in.getUnsignedInt(at);
            if (length < 2 || length > limits.maxHelloFrameBytes()) {
                return new Refused(Refusal.INVALID_HELLO, "a HELLO of " + length + " bytes (at most "
                        + limits.maxHelloFrameBytes() + ")", true);
            }
        }
        return null;
    }

    /**
     * A first frame whose version byte is not the HELLO's: a node of protocol version 1 or 2 (whose
     * HELLO carried its only version there), or not an rpcc node at all.
     */
    private static Object olderHello(byte version) {
        if (version >= 1 && version < FrameType.HELLO_VERSION) {
            return new VersionMismatch(null, new VersionRange(version, version));
        }
        return new Refused(Refusal.PROTOCOL_VERSION, "a first frame of unknown layout " + version + " (not an rpcc "
                + "HELLO; this node speaks rpcc protocol " + VersionRange.SUPPORTED.describe() + ")", true);
    }

    private Object accept(ByteBuf in, Hello h) {
        if (!HostNames.isValidNodeName(h.node(), limits.maxNodeNameLength()) || !HostNames.isValidHost(h.host())
                || !HostNames.isValidPort(h.port()) || h.maxFrameSize() < 1) {
            return stop(in, new Refused(Refusal.INVALID_HELLO, "a HELLO with an invalid node name (at most "
                    + limits.maxNodeNameLength() + " characters), host, port or frame size", true));
        }
        int version = VersionRange.SUPPORTED.agree(h.versions());
        if (version < 0) {
            return stop(in, new VersionMismatch(h.node(), h.versions()));
        }
        helloSeen = true;
        agreed = (byte) version;
        return h;
    }

    private boolean hasValidOrigin(ChainHeader h) {
        // the reply-to node is most often the originator itself: checked once then
        if (!isValid(h.originator()) || h.replyTo() != h.originator() && !h.replyTo().equals(h.originator())
                && !isValid(h.replyTo())) {
            return false;
        }
        for (ReturnPoint p : h.returnStack()) {
            if (!isValid(p.node())) {
                return false;
            }
        }
        return true;
    }

    private boolean isValid(NodeAddress a) {
        return HostNames.isValidNodeName(a.node(), limits.maxNodeNameLength()) && HostNames.isValidHost(a.host())
                && HostNames.isValidPort(a.port());
    }

    /** Ends decoding on this connection: everything after {@code refusal} is discarded unread. */
    private Object stop(ByteBuf in, Object refusal) {
        stopped = true;
        in.skipBytes(in.readableBytes());
        release();
        return refusal;
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) throws Exception {
        readNanos = System.nanoTime();
        super.channelRead(ctx, msg);
        if (!stopped) {
            accountPartialFrame(ctx);
        }
    }

    /** Counts the bytes of the frame in progress node-wide, and starts its clock. */
    private void accountPartialFrame(ChannelHandlerContext ctx) {
        int now = internalBuffer().readableBytes();
        if (now != held) {
            long total = partialBytes.addAndGet(now - held);
            held = now;
            if (now > 0 && total > limits.maxPartialFrameBytes()) {
                refuseFromOutside(ctx, new Refused(Refusal.PARTIAL_FRAMES_OVER_LIMIT, "the node holds " + total
                        + " bytes of partly received frames, over its limit of " + limits.maxPartialFrameBytes(), true));
                return;
            }
        }
        if (now == 0) {
            partialSince = 0;
        } else if (partialSince == 0) {
            partialSince = System.nanoTime();
            if (slowFrameCheck == null) {
                scheduleSlowFrameCheck(ctx, limits.frameTimeout().toNanos());
            }
        }
    }

    private void scheduleSlowFrameCheck(ChannelHandlerContext ctx, long delayNanos) {
        slowFrameCheck = ctx.executor().schedule(() -> checkSlowFrame(ctx), delayNanos, TimeUnit.NANOSECONDS);
    }

    /** One timer per connection at most, re-armed for the frame in progress rather than started per frame. */
    private void checkSlowFrame(ChannelHandlerContext ctx) {
        slowFrameCheck = null;
        if (stopped || partialSince == 0 || !ctx.channel().isActive()) {
            return;
        }
        long left = partialSince + limits.frameTimeout().toNanos() - System.nanoTime();
        if (left > 0) {
            scheduleSlowFrameCheck(ctx, left);
            return;
        }
        refuseFromOutside(ctx, new Refused(Refusal.SLOW_FRAME, "a frame did not arrive within "
                + limits.frameTimeout().toMillis() + " ms of its first bytes (" + held + " bytes so far)", true));
    }

    private void refuseFromOutside(ChannelHandlerContext ctx, Refused refusal) {
        stopped = true;
        release();
        ctx.fireChannelRead(refusal);
    }

    private void release() {
        if (held != 0) {
            partialBytes.addAndGet(-held);
            held = 0;
        }
        if (slowFrameCheck != null) {
            slowFrameCheck.cancel(false);
            slowFrameCheck = null;
        }
    }

    @Override
    protected void handlerRemoved0(ChannelHandlerContext ctx) throws Exception {
        release();
        super.handlerRemoved0(ctx);
    }

    /** A frame that could not be decoded, and why. */
    record MalformedFrame(HopFailure reason) {
    }

    /**
     * The peer's HELLO has no protocol version in common with this node's: refused as
     * {@link Refusal#PROTOCOL_VERSION}, and the connection must be closed (the decoder reads nothing
     * more from it).
     *
     * @param peer the peer's node name, or {@code null} if its HELLO was not read (an older layout)
     * @param versions the versions the peer speaks
     */
    record VersionMismatch(String peer, VersionRange versions) {
    }

    /**
     * Something refused on this connection, to be counted; if {@code closes}, the connection must
     * be closed (the decoder reads nothing more from it).
     */
    record Refused(Refusal kind, String reason, boolean closes) {
    }
}
