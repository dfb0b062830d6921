package io.rpcc.core.internal.transport;

import io.netty.channel.Channel;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.BooleanSupplier;

/** Lets producer threads wait until a channel is writable again (a lock, not a monitor: virtual threads may wait). */
final class WritabilityGate {
    private final ReentrantLock lock = new ReentrantLock();
    private final Condition changed = lock.newCondition();

    void changed() {
        lock.lock();
        try {
            changed.signalAll();
        } finally {
            lock.unlock();
        }
    }

    /**
     * Waits at most {@code timeout} for {@code ch} to be writable; gives up within 50 ms once
     * {@code giveUp} is true. True if it was writable when last looked at; false if it closed, the
     * time ran out or the caller gave up.
     */
    boolean await(Channel ch, Duration timeout, BooleanSupplier giveUp) throws InterruptedException {
        long left = timeout.toNanos();
        lock.lock();
        try {
            while (true) {
                if (ch.isWritable()) { // (read once: another producer may fill it again at once)
                    return true;
                }
                if (!ch.isActive() || left <= 0 || giveUp.getAsBoolean()) {
                    return false;
                }
                // Re-check at least every 50 ms: a writability change may race with entering the wait.
                long slice = Math.min(left, TimeUnit.MILLISECONDS.toNanos(50));
                long start = System.nanoTime();
                changed.awaitNanos(slice);
                left -= System.nanoTime() - start;
            }
        } finally {
            lock.unlock();
        }
    }
}
