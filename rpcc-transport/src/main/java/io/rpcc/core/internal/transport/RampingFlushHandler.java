package io.rpcc.core.internal.transport;

import io.netty.channel.ChannelDuplexHandler;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelPromise;

/**
 * Flushes a connection's frames in bursts that grow: within one burst of writes (the frames written
 * while one read is handled, or the writes handed to the event loop before it runs out of tasks),
 * the first frame goes out at once, then the next two together, then four, and so on up to a
 * ceiling; what is left goes out when the read completes or the loop's queued tasks are done.
 *
 * <p>Why not one flush per burst (Netty's {@code FlushConsolidationHandler}): with a burst of 16
 * replies held to the end of the read, the peer sits idle until the last is made, then this side
 * sits idle while the peer works on all 16; on two cores that halved a connection's throughput. Why
 * not one flush per frame: a system call per frame, and the peer woken per frame. Doubling costs
 * about log2(n) flushes for a burst of n frames and lets the peer start after the first.
 *
 * <p>Only used on the connection's event loop (Netty calls a handler on its loop).
 */
final class RampingFlushHandler extends ChannelDuplexHandler {
    private final int ceiling;
    private ChannelHandlerContext ctx;
    private boolean reading;
    private int pending;
    private int threshold = 1;
    /** Whether {@link #endBurst} is queued on the loop. */
    private boolean burstEnding;
    private final Runnable endBurst = this::endBurst;

    /** At most {@code ceiling} frames written before a flush, however long the burst. */
    RampingFlushHandler(int ceiling) {
        if (ceiling < 1) {
            throw new IllegalArgumentException("ceiling must be at least 1: " + ceiling);
        }
        this.ceiling = ceiling;
    }

    @Override
    public void handlerAdded(ChannelHandlerContext ctx) {
        this.ctx = ctx;
    }

    @Override
    public void flush(ChannelHandlerContext ctx) {
        if (++pending >= threshold) {
            threshold = Math.min(threshold << 1, ceiling);
            flushNow(ctx);
        }
        if (!reading && !burstEnding) {
            // the burst ends when the loop has run the tasks queued so far (writes handed over among them);
            // (execute, not submit: nothing waits for it, so no future is made per burst)
            ctx.channel().eventLoop().execute(endBurst); // (runs after this: the loop is this thread)
            burstEnding = true;
        }
    }

    private void endBurst() {
        burstEnding = false;
        if (!reading) {
            threshold = 1;
            if (pending > 0) {
                flushNow(ctx);
            }
        } // else the read's end ends it
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
        reading = true;
        ctx.fireChannelRead(msg);
    }

    @Override
    public void channelReadComplete(ChannelHandlerContext ctx) {
        reading = false;
        threshold = 1;
        flushIfPending(ctx);
        ctx.fireChannelReadComplete();
    }

    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
        reading = false;
        flushIfPending(ctx);
        ctx.fireExceptionCaught(cause);
    }

    @Override
    public void disconnect(ChannelHandlerContext ctx, ChannelPromise promise) {
        flushIfPending(ctx);
        ctx.disconnect(promise);
    }

    @Override
    public void close(ChannelHandlerContext ctx, ChannelPromise promise) {
        flushIfPending(ctx);
        ctx.close(promise);
    }

    @Override
    public void channelWritabilityChanged(ChannelHandlerContext ctx) {
        if (!ctx.channel().isWritable()) {
            flushIfPending(ctx); // what is held goes to the socket (and frees memory) rather than waiting
        }
        ctx.fireChannelWritabilityChanged();
    }

    @Override
    public void handlerRemoved(ChannelHandlerContext ctx) {
        flushIfPending(ctx);
    }

    private void flushIfPending(ChannelHandlerContext ctx) {
        if (pending > 0) {
            flushNow(ctx);
        }
    }

    private void flushNow(ChannelHandlerContext ctx) {
        pending = 0;
        ctx.flush();
    }
}
