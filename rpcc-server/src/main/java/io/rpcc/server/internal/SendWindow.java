package io.rpcc.server.internal;

import java.time.Duration;
import java.util.concurrent.atomic.LongAdder;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.BooleanSupplier;

/**
 * The producer's side of reply flow control for one reply stream (the replies of one hop at this
 * node): the room its originator granted, in replies and bytes. A reply is sent only once room for
 * it is taken here; a thread that finds none gives back what is left, asks for room for its reply
 * (once, until a grant answers) and waits. Only the stream's own threads wait: nothing here touches
 * a connection. The stream's requests and replies go out on one connection, in order.
 */
final class SendWindow {
    /** Tells the originator what the stream gives back and how large a reply it waits to send. */
    @FunctionalInterface
    interface Asker {
        void ask(int replies, long bytes, long wantBytes);
    }

    /** The longest a thread waits for room before it checks again whether it should give up. */
    static final Duration GIVE_UP_CHECK = Duration.ofMillis(100);

    /** Counts, for the node, the replies that waited for room and how long they waited. */
    static final class Waits {
        private final LongAdder waits = new LongAdder();
        private final LongAdder nanos = new LongAdder();

        /** Replies that found no room and waited (until room came, a timeout, a cancel or the stream's end). */
        long waits() {
            return waits.sum();
        }

        /** The time those replies waited, in all. */
        long nanos() {
            return nanos.sum();
        }
    }

    private final Waits waits;
    private final ReentrantLock lock = new ReentrantLock();
    private final Condition granted = lock.newCondition();
    private long replies;
    private long bytes;
    private long asked; // the reply size of the request not yet answered; 0: none
    private boolean closed;
    /** Hops using this stream: more than one for branches of a split. */
    private int users;

    /** A window whose waits are counted in {@code waits}. */
    SendWindow(Waits waits) {
        this.waits = waits;
    }

    /** A window whose waits are counted nowhere (for tests). */
    SendWindow() {
        this(new Waits());
    }

    /**
     * Takes room for one reply of {@code size} bytes, asking through {@code asker} if there is none,
     * waiting at most {@code timeout}, then runs {@code send} (which queues the reply on the stream's
     * connection) before another thread can ask. So the stream's frames leave in the order its room
     * was taken and asked for: when a request for room reaches the originator, every reply sent with
     * room taken before it has arrived, and all that the stream can still hold is a grant on its way.
     *
     * @return false if no room came within {@code timeout}, or the stream was closed meanwhile
     *     ({@code send} did not run)
     */
    boolean acquire(long size, Duration timeout, Asker asker, Runnable send) throws InterruptedException {
        return acquire(size, timeout, () -> false, asker, send);
    }

    /**
     * {@link #acquire(long, Duration, Asker, Runnable)}, giving up (false) as soon as {@code giveUp}
     * is true when there is no room: it is checked under this window's lock before each wait, so a
     * {@link #wake()} after it becomes true ends the wait at once (the hop's cancel does that: the
     * waiting thread may be one that the cancel does not interrupt), and at least every
     * {@link #GIVE_UP_CHECK} while waiting (so that a condition nothing wakes the window for, such as
     * the connection the grant would come on closing, ends the wait soon too).
     */
    boolean acquire(long size, Duration timeout, BooleanSupplier giveUp, Asker asker, Runnable send)
            throws InterruptedException {
        long timeoutNanos = timeout.toNanos();
        long deadline = 0; // set when a wait first starts (a reply that finds room reads no clock)
        long waitedSince = 0; // likewise
        lock.lock();
        try {
            while (replies < 1 || bytes < size) {
                if (closed || giveUp.getAsBoolean()) {
                    return false;
                }
                if (asked < size) {
                    int giveReplies = (int) Math.min(Integer.MAX_VALUE, replies);
                    long giveBytes = bytes;
                    replies -= giveReplies;
                    bytes = 0;
                    asked = size;
                    asker.ask(giveReplies, giveBytes, size); // encodes and queues a small frame: does not block
                }
                if (waitedSince == 0) {
                    waitedSince = System.nanoTime() | 1; // (never 0)
                    waits.waits.increment();
                }
                if (timeoutNanos > 0 && deadline == 0) {
                    deadline = waitedSince + timeoutNanos | 1; // (never 0)
                }
                long left = timeoutNanos <= 0 ? 0 : deadline - System.nanoTime();
                if (left <= 0) {
                    return false;
                }
                granted.awaitNanos(Math.min(left, GIVE_UP_CHECK.toNanos()));
            }
            replies--;
            bytes -= size;
            send.run();
            return true;
        } finally {
            lock.unlock();
            if (waitedSince != 0) {
                waits.nanos.add(System.nanoTime() - waitedSince);
            }
        }
    }

    /** Wakes the threads waiting for room, to check again whether they should give up. */
    void wake() {
        lock.lock();
        try {
            granted.signalAll();
        } finally {
            lock.unlock();
        }
    }

    /**
     * The originator granted room; false if the stream has closed (the caller gives the room back).
     */
    boolean grant(int moreReplies, long moreBytes) {
        lock.lock();
        try {
            if (closed) {
                return false;
            }
            replies += moreReplies;
            bytes = moreBytes > Long.MAX_VALUE - bytes ? Long.MAX_VALUE : bytes + moreBytes;
            asked = 0;
            granted.signalAll();
            return true;
        } finally {
            lock.unlock();
        }
    }

    /**
     * One more hop sends on this stream ({@link ReplyStreams#open}); false if its last user has
     * closed it meanwhile (the hop then takes a new stream under the same name).
     */
    boolean retain() {
        lock.lock();
        try {
            if (closed) {
                return false;
            }
            users++;
            return true;
        } finally {
            lock.unlock();
        }
    }

    /**
     * A hop that sent on this stream ends: if it was the last user, closes the stream and gives the
     * room left back through {@code giveBack} (if there is any) before anyone else can retain it, so
     * that a stream opened under the same name afterwards asks its originator for room only after
     * this give-back is on its way (in the same connection's order). Without that, the originator
     * could count the room this stream still held as a grant on its way to the new one, and grant it
     * nothing: its replies would wait until the reply write timeout. Returns whether the stream closed.
     */
    boolean release(Asker giveBack) {
        lock.lock();
        try {
            if (closed) {
                return true;
            }
            if (--users > 0) {
                return false;
            }
            long[] left = close();
            if (left[0] > 0 || left[1] > 0) {
                giveBack.ask((int) Math.min(Integer.MAX_VALUE, left[0]), left[1], 0); // queues a small frame
            }
            return true;
        } finally {
            lock.unlock();
        }
    }

    /** Closes the stream (it will send nothing more); returns the room left, {replies, bytes}. */
    long[] close() {
        // (also when the hop is abandoned: its node closed)
        lock.lock();
        try {
            closed = true;
            long[] left = {replies, bytes};
            replies = 0;
            bytes = 0;
            granted.signalAll(); // a preturn waiting for room gives up
            return left;
        } finally {
            lock.unlock();
        }
    }
}
