package io.rpcc.core.internal.transport;

import io.netty.channel.Channel;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;

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

    boolean await(Channel ch, Duration timeout) throws InterruptedException {
        long left = timeout.toNanos();
        lock.lock();
        try {
            while (!ch.isWritable() && ch.isActive()) {
                if (left <= 0) {
                    return false;
                }
                // Re-check at least every 50 ms: a writability change may race with entering the wait.
                long slice = Math.min(left, TimeUnit.MILLISECONDS.toNanos(50));
                long start = System.nanoTime();
                changed.awaitNanos(slice);
                left -= System.nanoTime() - start;
            }
            return ch.isWritable();
        } finally {
            lock.unlock();
        }
    }
}
