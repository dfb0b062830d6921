package io.rpcc.core.internal.transport;

import io.netty.buffer.ByteBuf;
import io.netty.channel.Channel;
import io.netty.channel.ChannelDuplexHandler;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelPromise;
import io.netty.util.AttributeKey;
import io.netty.util.ReferenceCountUtil;
import io.netty.util.concurrent.ScheduledFuture;
import io.rpcc.core.internal.wire.FrameType;
import io.rpcc.core.internal.wire.GoAwayFrame;
import io.rpcc.core.internal.wire.WireFormat;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Lets a connection go without losing a frame the peer is writing at that moment (the
 * {@code "goaway"} handler, between {@link ConnectionHealth} and the frame decoder), as HTTP/2's
 * GOAWAY does:
 *
 * <ol>
 *   <li>The node that lets the connection go ({@link #goAway}: it was idle, or reclaimed to make
 *       room) takes it out of its {@link PeerTable}, so that no new chain is handed it, writes a
 *       GOAWAY frame ({@link GoAwayFrame}) and from then on writes nothing more on it: a frame
 *       handed to the connection later fails with {@link UnsentFrame} without touching the socket
 *       (the caller may send it again on another connection). It goes on reading, and serving,
 *       whatever the peer wrote.</li>
 *   <li>The peer, when it reads the GOAWAY ({@link #received}), does the same: out of its table,
 *       its own GOAWAY written after everything it wrote before, nothing more after it. Then it
 *       closes: it has read everything the first node will ever write.</li>
 *   <li>The first node closes when it reads the peer's GOAWAY, the last frame the peer writes.</li>
 * </ol>
 *
 * So neither side closes while the other may still write: a frame written before the writer read
 * the other's GOAWAY is read and served, one handed to the connection after is refused before it
 * left.
 *
 * <p>Streams already open on the connection finish, as HTTP/2's do (no new stream after GOAWAY,
 * the open ones end): the frames of a hop's data stream (STREAM_DATA, STREAM_END from its sender,
 * STREAM_CREDIT, STREAM_CANCEL from its receiver) still go after this node's GOAWAY, and the node
 * that receives a GOAWAY holds back its answer (so the first node keeps reading) until the streams
 * it sends on the connection ({@link HopStreams}) have ended ({@link #streamsEnded}), at most the
 * ping timeout. Meanwhile the connection is going away ({@link #goingAway}): out of the table, every
 * other frame refused as unsent, a REQUEST with it (so no new stream opens). Both sides may start at once (both idle): each then reads the other's GOAWAY as the answer.
 * Bounds: a node that wrote its GOAWAY closes the connection after its ping timeout whatever the
 * peer does (a peer that ignores the notice and keeps writing, or never closes, keeps nothing), a
 * second GOAWAY is ignored, and a connection whose handshake is not done (a dial reclaimed to make
 * room; the idle timeout leaves such a connection to the handshake and connect timeouts) is closed
 * at once: it carries no chain. State is kept and changed on the connection's event loop.
 */
final class GracefulClose extends ChannelDuplexHandler {
    private static final Logger log = LoggerFactory.getLogger(NodeTransport.class);
    private static final AttributeKey<GracefulClose> KEY = AttributeKey.valueOf("rpcc.gracefulClose");
    /** Room for the GOAWAY frame (7 bytes), which every peer's frame limit allows. */
    private static final int GOAWAY_MAX_BYTES = 64;
    /** Where a frame's type byte is: after its length (4 bytes) and its version (1). */
    private static final int TYPE_OFFSET = 5;

    /**
     * Fired down the pipeline (to {@link FrameHandler}, which takes the connection out of its
     * {@link PeerTable}) when this node starts letting the connection go, before its GOAWAY.
     */
    static final Object GOING_AWAY = new Object() {
        @Override
        public String toString() {
            return "GOING_AWAY";
        }
    };

    private final WireFormat wire;
    private final long boundNanos;
    private ChannelHandlerContext ctx;
    /** This node wrote its GOAWAY: it writes nothing more but stream frames (read from any thread by {@link #goingAway}). */
    private volatile boolean sent;
    /**
     * The peer's GOAWAY arrived and this node holds back its answer until its own streams on the
     * connection end: it writes nothing more but stream frames (read from any thread).
     */
    private volatile boolean leaving;
    private boolean received;
    private ChannelFuture goAwayWritten;
    private ScheduledFuture<?> hardClose;

    /**
     * The graceful close of one connection: GOAWAY encoded by {@code wire}, closed at the latest
     * {@code bound} after this node's GOAWAY.
     */
    GracefulClose(WireFormat wire, Duration bound) {
        this.wire = wire;
        this.boundNanos = bound.toNanos();
    }

    /** Whether {@code ch} is going away: this node wrote (or is writing) its GOAWAY there, and hands it nothing more. */
    static boolean goingAway(Channel ch) {
        GracefulClose g = ch.attr(KEY).get();
        return g != null && (g.sent || g.leaving);
    }

    /**
     * The last stream this node was sending on {@code ch} ended (from any thread): a GOAWAY held back
     * for it is written now.
     */
    static void streamsEnded(Channel ch) {
        GracefulClose g = ch.attr(KEY).get();
        if (g != null && g.leaving) {
            ch.eventLoop().execute(g::answerIfDone);
        }
    }

    /**
     * Lets {@code ch} go gracefully (from any thread): GOAWAY, then closed once the peer answers,
     * or after the bound. Closed at once if its handshake is not done or it has no such handler.
     */
    static void goAway(Channel ch) {
        GracefulClose g = ch.attr(KEY).get();
        if (g == null) {
            ch.close();
        } else if (ch.eventLoop().inEventLoop()) {
            g.start();
        } else {
            ch.eventLoop().execute(g::start);
        }
    }

    /** The peer's GOAWAY arrived on {@code ch} (on its event loop). */
    static void received(Channel ch) {
        GracefulClose g = ch.attr(KEY).get();
        if (g != null) {
            g.onGoAway();
        }
    }

    @Override
    public void handlerAdded(ChannelHandlerContext ctx) {
        this.ctx = ctx;
        ctx.channel().attr(KEY).set(this);
    }

    /** This node lets the connection go. */
    private void start() {
        Channel ch = ctx.channel();
        if (!ch.isActive() || sent) {
            return;
        }
        if (ConnectionAttributes.peer(ch) == null) { // no handshake (a dial reclaimed): no chain on it, nothing to lose
            ch.close();
            return;
        }
        send();
    }

    private void onGoAway() {
        if (received) { // a second one: the connection closes anyway, once this node's GOAWAY is written
            return;
        }
        received = true;
        if (sent) { // the answer to this node's GOAWAY: the peer writes nothing more
            closeOnceWritten();
            return;
        }
        if (!HopStreams.sendingOn(ctx.channel())) {
            send();
            closeOnceWritten();
            return;
        }
        // this node's streams on the connection finish first: the peer reads until this node's GOAWAY
        leaving = true;
        ctx.fireUserEventTriggered(GOING_AWAY); // out of the table now: no new chain is handed it
        hardClose = ctx.executor().schedule(() -> {
            if (leaving && ctx.channel().isActive()) {
                log.debug("{}: this node's streams did not end within {} ms of the peer's GOAWAY; answered",
                        ctx.channel(), TimeUnit.NANOSECONDS.toMillis(boundNanos));
                answer();
            }
        }, boundNanos, TimeUnit.NANOSECONDS);
        answerIfDone(); // (a stream that ended between the check and the flag)
    }

    /** The GOAWAY held back for this node's streams, once none is left (on the event loop). */
    private void answerIfDone() {
        if (leaving && !HopStreams.sendingOn(ctx.channel())) {
            answer();
        }
    }

    private void answer() {
        hardClose.cancel(false);
        leaving = false;
        send(false);
        closeOnceWritten();
    }

    /** Out of the table, GOAWAY written, nothing after it; closed by the bound if the peer does not answer. */
    private void send() {
        send(true);
    }

    private void send(boolean leaveTable) {
        Channel ch = ctx.channel();
        if (leaveTable) {
            ctx.fireUserEventTriggered(GOING_AWAY); // out of the table: no new chain is handed it (one that took it
                                                    // a moment ago is refused below)
        }
        sent = true;
        ByteBuf frame = wire.encode(GoAwayFrame.IDLE_CONNECTION, GOAWAY_MAX_BYTES, ch.alloc());
        goAwayWritten = ctx.writeAndFlush(frame); // (from this handler: not refused by write below)
        hardClose = ctx.executor().schedule(() -> {
            if (ch.isActive()) {
                log.debug("{}: the peer did not answer this node's GOAWAY within {} ms; closed", ch,
                        TimeUnit.NANOSECONDS.toMillis(boundNanos));
                ch.close();
            }
        }, boundNanos, TimeUnit.NANOSECONDS);
    }

    private void closeOnceWritten() {
        goAwayWritten.addListener(f -> ctx.channel().close());
    }

    @Override
    public void write(ChannelHandlerContext ctx, Object msg, ChannelPromise promise) throws Exception {
        if ((sent || leaving) && !streamFrame(msg)) {
            ReferenceCountUtil.release(msg);
            promise.tryFailure(new UnsentFrame("the connection is going away (this node wrote its GOAWAY there); "
                    + "the frame was not written", null));
            return;
        }
        super.write(ctx, msg, promise);
    }

    /** Whether {@code msg} is a frame of a hop's data stream (its type byte follows the length and the version). */
    private static boolean streamFrame(Object msg) {
        if (!(msg instanceof ByteBuf b) || b.readableBytes() <= TYPE_OFFSET) {
            return false;
        }
        byte type = b.getByte(b.readerIndex() + TYPE_OFFSET);
        return type == FrameType.STREAM_DATA.wire() || type == FrameType.STREAM_END.wire()
                || type == FrameType.STREAM_CREDIT.wire() || type == FrameType.STREAM_CANCEL.wire();
    }

    @Override
    public void channelInactive(ChannelHandlerContext ctx) throws Exception {
        if (hardClose != null) {
            hardClose.cancel(false);
        }
        super.channelInactive(ctx);
    }
}
