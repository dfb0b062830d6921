package io.rpcc.core.internal.transport;

import io.netty.channel.Channel;
import io.netty.channel.ChannelOutboundBuffer;
import java.time.Duration;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;

/**
 * Watches a connection while more waits to be written to it than Netty lets through at once (its
 * high water mark): if not a byte of it is written for the stall timeout, {@code onStall} runs.
 * Samples the write queue a few times per timeout, on the connection's event loop (where every
 * method must be called), and stops when the queue is empty or the connection closed.
 */
final class WriteStallWatch {
    private static final long MIN_INTERVAL_NANOS = TimeUnit.MILLISECONDS.toNanos(10);
    private static final long MAX_INTERVAL_NANOS = TimeUnit.SECONDS.toNanos(1);

    private final Channel ch;
    private final long timeoutNanos;
    private final Runnable onStall;
    private ScheduledFuture<?> task;
    private long pending;
    private long progress;
    private int current;
    private long lastProgressNanos;

    /** A watch of {@code ch} that runs {@code onStall} (on its event loop) after {@code timeout} without progress. */
    WriteStallWatch(Channel ch, Duration timeout, Runnable onStall) {
        this.ch = ch;
        this.timeoutNanos = timeout.toNanos();
        this.onStall = onStall;
    }

    /** Starts watching (if not already): called when the connection's write queue went over the high water mark. */
    void start() {
        if (task != null || !ch.isActive()) {
            return;
        }
        ChannelOutboundBuffer queue = ch.unsafe().outboundBuffer();
        if (queue == null) {
            return;
        }
        remember(queue);
        lastProgressNanos = System.nanoTime();
        long interval = Math.clamp(timeoutNanos / 4, MIN_INTERVAL_NANOS, MAX_INTERVAL_NANOS);
        task = ch.eventLoop().scheduleAtFixedRate(this::check, interval, interval, TimeUnit.NANOSECONDS);
    }

    private void check() {
        ChannelOutboundBuffer queue = ch.unsafe().outboundBuffer();
        if (queue == null || !ch.isActive() || queue.totalPendingWriteBytes() == 0) {
            stop();
            return;
        }
        long now = System.nanoTime();
        // progress: a frame written out (less pending, or another frame first in the queue), or some
        // bytes of the first one
        if (queue.totalPendingWriteBytes() < pending || queue.currentProgress() != progress
                || System.identityHashCode(queue.current()) != current) {
            lastProgressNanos = now;
        }
        remember(queue);
        if (now - lastProgressNanos >= timeoutNanos) {
            stop();
            onStall.run();
        }
    }

    private void remember(ChannelOutboundBuffer queue) {
        pending = queue.totalPendingWriteBytes();
        progress = queue.currentProgress();
        current = System.identityHashCode(queue.current());
    }

    private void stop() {
        if (task != null) {
            task.cancel(false);
            task = null;
        }
    }
}
