package io.rpcc.core.internal.transport;

import io.netty.channel.Channel;
import io.netty.channel.ChannelConfig;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelProgressiveFuture;
import io.netty.channel.ChannelProgressiveFutureListener;
import io.netty.channel.ChannelProgressivePromise;
import io.netty.util.AttributeKey;
import java.util.concurrent.atomic.AtomicLong;

/**
 * What a connection holds to be written, read through Netty's public API: its queued bytes (as
 * Netty counts them for writability), and how many of its frames' bytes have been written.
 * Frames are written with a progressive promise, so the bytes of a large frame written a part at a
 * time count as progress too ({@link WriteStallWatch}).
 */
final class WriteQueue {
    private static final AttributeKey<Progress> PROGRESS = AttributeKey.valueOf("rpcc.writeProgress");

    private WriteQueue() {
    }

    /**
     * The bytes waiting in {@code ch}'s write queue, exactly as Netty counts them against its water
     * marks (written but not flushed, and flushed but not yet taken by the socket); 0 once closed.
     * Netty tells how far the count is from the next water mark it will cross: from that and the
     * marks, the count itself.
     */
    static long pending(Channel ch) {
        ChannelConfig config = ch.config();
        for (int attempt = 0; attempt < 3; attempt++) {
            long beforeUnwritable = ch.bytesBeforeUnwritable(); // high mark - pending + 1, while writable
            if (beforeUnwritable > 0) {
                return Math.max(0, config.getWriteBufferHighWaterMark() - beforeUnwritable + 1);
            }
            long beforeWritable = ch.bytesBeforeWritable(); // pending - low mark + 1, while not writable
            if (beforeWritable > 0) {
                return config.getWriteBufferLowWaterMark() + beforeWritable - 1;
            }
            if (!ch.isOpen()) {
                return 0;
            }
            // both 0: the writability flipped between the two reads (or the count sits on a mark): again
        }
        return ch.isWritable() ? config.getWriteBufferLowWaterMark() : config.getWriteBufferHighWaterMark();
    }

    /**
     * Written progress on {@code ch}: grows whenever some bytes of a frame written by {@link #write}
     * have gone to the socket.
     */
    static long progress(Channel ch) {
        Progress p = ch.attr(PROGRESS).get();
        return p == null ? 0 : p.get();
    }

    /**
     * Writes {@code frame} to {@code ch}, flushed if {@code flush}, counting its progress; {@code done} is
     * on the write's promise before the write is handed to the channel, so the event loop runs it as the
     * write completes (a listener added afterwards from another thread, to a write already complete, would
     * be handed to the loop as a task of its own).
     */
    static ChannelFuture write(Channel ch, Object frame, boolean flush, ChannelFutureListener done) {
        ChannelProgressivePromise promise = ch.newProgressivePromise();
        // one listener per frame, counting the progress and then telling done (two listeners on a promise
        // cost it an array of listeners per frame)
        promise.addListener(new Counted(progressOf(ch), done));
        return flush ? ch.writeAndFlush(frame, promise) : ch.write(frame, promise);
    }

    private static Progress progressOf(Channel ch) {
        Progress p = ch.attr(PROGRESS).get();
        if (p == null) {
            p = ch.attr(PROGRESS).setIfAbsent(new Progress());
            if (p == null) {
                p = ch.attr(PROGRESS).get();
            }
        }
        return p;
    }

    /** A connection's written progress, bumped as each of its frames' writes progresses or completes. */
    private static final class Progress extends AtomicLong {
    }

    /** The listener of one frame's write: bumps its connection's {@link Progress}, then, once written, tells {@code done}. */
    private record Counted(Progress progress, ChannelFutureListener done) implements ChannelProgressiveFutureListener {
        @Override
        public void operationProgressed(ChannelProgressiveFuture future, long progress, long total) {
            this.progress.incrementAndGet();
        }

        @Override
        public void operationComplete(ChannelProgressiveFuture future) throws Exception {
            progress.incrementAndGet();
            done.operationComplete(future);
        }
    }
}
