package io.rpcc.core.internal.transport;

import io.netty.channel.Channel;
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
        remember();
        lastProgressNanos = System.nanoTime();
        long interval = Math.clamp(timeoutNanos / 4, MIN_INTERVAL_NANOS, MAX_INTERVAL_NANOS);
        task = ch.eventLoop().scheduleAtFixedRate(this::check, interval, interval, TimeUnit.NANOSECONDS);
    }

    private void check() {
        long queued = WriteQueue.pending(ch);
        if (!ch.isActive() || queued == 0) {
            stop();
            return;
        }
        long now = System.nanoTime();
        // progress: a frame written out (less pending, or a frame's promise told of it), or some bytes
        // of a frame (its progressive promise; with TLS, the queue holds records of at most 16 KB)
        if (queued < pending || WriteQueue.progress(ch) != progress) {
            lastProgressNanos = now;
        }
        remember();
        if (now - lastProgressNanos >= timeoutNanos) {
            stop();
            onStall.run();
        }
    }

    private void remember() {
        pending = WriteQueue.pending(ch);
        progress = WriteQueue.progress(ch);
    }

    private void stop() {
        if (task != null) {
            task.cancel(false);
            task = null;
        }
    }
}
