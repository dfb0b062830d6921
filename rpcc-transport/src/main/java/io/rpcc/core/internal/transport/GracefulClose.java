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
 * left. Both sides may start at once (both idle): each then reads the other's GOAWAY as the answer.
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
    /** This node wrote its GOAWAY: it writes nothing more (read from any thread by {@link #goingAway}). */
    private volatile boolean sent;
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
        return g != null && g.sent;
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
        if (!sent) {
            send();
        }
        closeOnceWritten();
    }

    /** Out of the table, GOAWAY written, nothing after it; closed by the bound if the peer does not answer. */
    private void send() {
        Channel ch = ctx.channel();
        ctx.fireUserEventTriggered(GOING_AWAY); // out of the table: no new chain is handed it (one that took it
                                                // a moment ago is refused below)
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
        if (sent) {
            ReferenceCountUtil.release(msg);
            promise.tryFailure(new UnsentFrame("the connection is going away (this node wrote its GOAWAY there); "
                    + "the frame was not written", null));
            return;
        }
        super.write(ctx, msg, promise);
    }

    @Override
    public void channelInactive(ChannelHandlerContext ctx) throws Exception {
        if (hardClose != null) {
            hardClose.cancel(false);
        }
        super.channelInactive(ctx);
    }
}
