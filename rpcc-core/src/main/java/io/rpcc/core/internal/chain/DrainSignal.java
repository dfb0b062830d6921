package io.rpcc.core.internal.chain;

import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.BooleanSupplier;

/**
 * Wakes a draining node ({@link Node#shutdown}) when what it waits for may have finished: each end
 * of a chain it started, of a hop it ran or of a frame a hop handed on signals it, and the shutdown
 * looks again. A lock, not a monitor: the waiter may be a virtual thread.
 *
 * <p>A signal takes the lock only while someone waits: every chain, hop and frame signals, from
 * every thread of the node, and a lock taken for each would make them queue for it when no node is
 * draining. A waiter counts itself before it looks at what it waits for, and a signal reads the
 * count after what it signals has changed (both through volatile accesses), so either the signal
 * sees the waiter or the waiter sees the change.
 */
final class DrainSignal {
    /** The longest a waiter sleeps without a signal (a safety net, not the way it learns of progress). */
    private static final long RECHECK_NANOS = TimeUnit.SECONDS.toNanos(1);

    private final ReentrantLock lock = new ReentrantLock();
    private final Condition changed = lock.newCondition();
    private final AtomicInteger waiters = new AtomicInteger();

    /** Something the drain waits for ended (call it after the change, so that the waiter sees it). */
    void changed() {
        if (waiters.get() == 0) {
            return;
        }
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
        waiters.incrementAndGet();
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
            waiters.decrementAndGet();
        }
    }
}
