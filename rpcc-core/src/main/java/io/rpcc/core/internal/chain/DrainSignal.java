package io.rpcc.core.internal.chain;

import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.BooleanSupplier;

/**
 * Wakes a draining node ({@link Node#shutdown}) when what it waits for may have finished: each end
 * of a chain it started, of a hop it ran or of a frame a hop handed on signals it, and the shutdown
 * looks again. A lock, not a monitor: the waiter may be a virtual thread.
 */
final class DrainSignal {
    /** The longest a waiter sleeps without a signal (a safety net, not the way it learns of progress). */
    private static final long RECHECK_NANOS = TimeUnit.SECONDS.toNanos(1);

    private final ReentrantLock lock = new ReentrantLock();
    private final Condition changed = lock.newCondition();

    /** Something the drain waits for ended. */
    void changed() {
        lock.lock();
        try {
            changed.signalAll();
        } finally {
            lock.unlock();
        }
    }

    /**
     * Waits until {@code drained} is true, or until {@code deadlineNanos} ({@link System#nanoTime()});
     * whether it is drained.
     */
    boolean await(BooleanSupplier drained, long deadlineNanos) throws InterruptedException {
        lock.lock();
        try {
            while (!drained.getAsBoolean()) {
                long left = deadlineNanos - System.nanoTime();
                if (left <= 0) {
                    return false;
                }
                changed.awaitNanos(Math.min(left, RECHECK_NANOS));
            }
            return true;
        } finally {
            lock.unlock();
        }
    }
}
