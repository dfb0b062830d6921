package io.rpcc.client.internal;

import io.rpcc.client.ReplySet;

import io.rpcc.core.ChainCancelledException;
import io.rpcc.core.ChainException;
import io.rpcc.core.ChainResult;
import io.rpcc.core.ChainTimeoutException;
import io.rpcc.core.internal.chain.ChainOriginator;
import io.rpcc.core.internal.chain.ReplyWindow;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.Iterator;
import java.util.NoSuchElementException;
import java.util.Spliterator;
import java.util.Spliterators;
import java.util.concurrent.CompletableFuture;
import java.util.function.BiConsumer;
import java.util.concurrent.Executor;
import java.util.concurrent.Flow;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;
import java.util.stream.Stream;
import java.util.stream.StreamSupport;
import org.jspecify.annotations.Nullable;

/**
 * The {@link ReplySet} of one chain: a buffer of partial replies bounded in replies and bytes, the
 * chain's {@link ReplyWindow} (which grants room to the producers as the reader frees it), and the
 * sink through which the chain's originator delivers replies, the result and the end.
 *
 * @param <T> the type of the replies
 */
public final class BufferedReplySet<T> implements ReplySet<T> {
    private final Class<T> type;
    private final ReplyWindow window;
    private final Executor executor;
    private final ReentrantLock lock = new ReentrantLock();
    private final Condition changed = lock.newCondition();
    private final ArrayDeque<Buffered> buffer = new ArrayDeque<>();
    private final CompletableFuture<ChainResult> result = new CompletableFuture<>();
    private final CompletableFuture<ReplySet<T>> done = new CompletableFuture<>();
    private volatile @Nullable BiConsumer<@Nullable ChainResult, @Nullable Throwable> endListener;
    private volatile ReplyTap tap = ReplyTap.NONE;
    private final AtomicBoolean iterated = new AtomicBoolean();
    private final AtomicBoolean subscribed = new AtomicBoolean();
    private boolean ended;
    private boolean timedOut;
    private @Nullable Throwable error;
    private int received;
    private int arrivedAfterEnd;
    private int maxBuffered;
    private long bufferedBytes;
    private long maxBufferedBytes;
    private volatile Runnable canceller;

    /** A reply waiting to be read, and what it costs of the window. */
    private record Buffered(Object value, int bytes) {
    }

    /**
     * An empty set of replies of {@code type}, holding at most {@code capacity} unread replies of
     * {@code capacityBytes} bytes; its done future completes on {@code executor}.
     */
    public BufferedReplySet(Class<T> type, int capacity, long capacityBytes, Executor executor) {
        if (capacity < 1) {
            throw new IllegalArgumentException("reply buffer capacity must be positive, got " + capacity);
        }
        this.type = type;
        this.window = new ReplyWindow(capacity, capacityBytes);
        this.executor = executor;
    }

    // ------------------------------------------------------------------ fed by rpcc

    /**
     * Where rpcc delivers this set's replies, and the window that bounds them (internal): the same
     * object every time, so that every attempt of the chain, and its diagnosis, feed one sink (and a
     * reply sent again by a replayed hop is delivered to the set once).
     */
    public ChainOriginator.ReplySink sink() {
        return sink;
    }

    private final ChainOriginator.ReplySink sink = new ChainOriginator.ReplySink() {
        @Override
        public void onReply(Object value, int hop, String host, int bytes) {
            add(value, bytes);
        }

        @Override
        public ReplyWindow window() {
            return window;
        }
    };

    private void add(Object value, int bytes) {
        lock.lock();
        try {
            if (ended) {
                arrivedAfterEnd++; // never expected: the termination protocol forbids it; counted for tests
                return;
            }
            tap.replied(bytes); // before the reply can be read: a listener knows of it before the set ends
            buffer.add(new Buffered(value, bytes));
            received++;
            bufferedBytes += bytes;
            maxBuffered = Math.max(maxBuffered, buffer.size());
            maxBufferedBytes = Math.max(maxBufferedBytes, bufferedBytes);
            changed.signalAll();
        } finally {
            lock.unlock();
        }
    }

    /**
     * What is told of each reply this set takes in, on the thread that delivers it, before it can be
     * read; set once by the client before the chain starts.
     */
    public void whenReplied(ReplyTap tap) {
        this.tap = tap;
    }

    /**
     * What is told, once, on the client's executor, how the set ended (the result if it arrived, and
     * the error if any), before {@link #whenDone()} completes; set once by the client before the chain starts.
     */
    public void whenEnded(BiConsumer<@Nullable ChainResult, @Nullable Throwable> listener) {
        this.endListener = listener;
    }

    /** What {@link #cancel()} runs to cancel the chain (set once by the client). */
    public void cancelWith(Runnable canceller) {
        this.canceller = canceller;
    }

    /**
     * Cancels the chain: the notice follows it from server to server, the hop running is
     * interrupted, the producers' {@code preturn} throws, no further hop starts, and the set ends at
     * once with a {@link ChainCancelledException} ({@link #error()}, {@link #result()}); the replies
     * received so far stay readable, and those still on their way are dropped. The set and the
     * result are separate: if the chain's result had arrived before the cancel (the set was still
     * waiting for replies), {@link #result()} keeps that result, and the cancel still ends the set
     * ({@link #isPartial()}, {@link #error()} is the {@link ChainCancelledException}).
     *
     * @return {@code true} if this call ended the set (whether or not the result had arrived),
     *     {@code false} if it had already ended
     */
    @Override
    public boolean cancel() {
        if (isDone()) {
            return false;
        }
        Runnable c = canceller;
        if (c != null) {
            c.run();
        }
        lock.lock();
        try {
            return ended && error instanceof ChainCancelledException;
        } finally {
            lock.unlock();
        }
    }

    /** The chain's final result arrived (internal). */
    public void resultArrived(ChainResult r) {
        result.complete(r);
    }

    /** The chain failed (internal). */
    public void resultFailed(Throwable e) {
        result.completeExceptionally(e);
    }

    /** The chain is finished: every reply is in, or {@code failure} (a timeout) ended it (internal). */
    public void finished(@Nullable Throwable failure) {
        lock.lock();
        try {
            if (ended) {
                return;
            }
            ended = true;
            if (failure != null) {
                timedOut = failure instanceof ChainTimeoutException;
                error = failure;
                result.completeExceptionally(failure);
            } else if (result.isCompletedExceptionally()) {
                error = result.handle((r, e) -> e).join();
            }
            changed.signalAll();
        } finally {
            lock.unlock();
        }
        BiConsumer<@Nullable ChainResult, @Nullable Throwable> listener = endListener;
        if (listener == null) {
            executor.execute(() -> done.complete(this));
            return;
        }
        ChainResult arrived = result.isDone() && !result.isCompletedExceptionally() ? result.join() : null;
        Throwable why = error;
        executor.execute(() -> {
            try {
                listener.accept(arrived, why);
            } finally {
                done.complete(this);
            }
        });
    }

    // ------------------------------------------------------------------ read by the user

    /**
     * Whether another reply is available, waiting until one arrives or the set ends.
     */
    @Override
    public boolean hasMore() {
        lock.lock();
        try {
            while (buffer.isEmpty() && !ended) {
                changed.awaitUninterruptibly();
            }
            return !buffer.isEmpty();
        } finally {
            lock.unlock();
        }
    }

    /**
     * Whether another reply is available, waiting at most {@code timeout}.
     *
     * @return {@code true} if one is available, {@code false} if the set ended or the wait timed out
     */
    @Override
    public boolean hasMore(Duration timeout) throws InterruptedException {
        long left = timeout.toNanos();
        lock.lock();
        try {
            while (buffer.isEmpty() && !ended && left > 0) {
                left = changed.awaitNanos(left);
            }
            return !buffer.isEmpty();
        } finally {
            lock.unlock();
        }
    }

    /**
     * The next reply, waiting until one arrives.
     *
     * @throws NoSuchElementException if the set ended without more replies
     */
    @Override
    public T next() {
        Buffered next;
        lock.lock();
        try {
            while (buffer.isEmpty() && !ended) {
                changed.awaitUninterruptibly();
            }
            if (buffer.isEmpty()) {
                throw new NoSuchElementException("the reply set has ended");
            }
            next = buffer.poll();
            bufferedBytes -= next.bytes();
        } finally {
            lock.unlock();
        }
        window.consumed(next.bytes()); // the room goes back to the producers (may send a grant)
        return type.cast(next.value());
    }

    /** A one-pass iterator over the replies ({@link #hasMore()} / {@link #next()}). */
    @Override
    public Iterator<T> iterator() {
        if (!iterated.compareAndSet(false, true)) {
            throw new IllegalStateException("a reply set can be iterated once");
        }
        return new Iterator<>() {
            @Override
            public boolean hasNext() {
                return hasMore();
            }

            @Override
            public T next() {
                return BufferedReplySet.this.next();
            }
        };
    }

    /** The replies as a sequential stream, in arrival order; it ends when the set ends. */
    @Override
    public Stream<T> stream() {
        return StreamSupport.stream(Spliterators.spliteratorUnknownSize(iterator(), Spliterator.ORDERED), false);
    }

    /**
     * The replies as a {@link Flow.Publisher} for one subscriber, honouring its demand; signals
     * {@code onComplete} when the set ends normally and {@code onError} with {@link #error()} when it
     * ends by an error or a timeout (after delivering the replies received). Delivery runs on the
     * client's executor.
     */
    @Override
    public Flow.Publisher<T> publisher() {
        return subscriber -> {
            if (!subscribed.compareAndSet(false, true)) {
                subscriber.onSubscribe(new Flow.Subscription() {
                    @Override
                    public void request(long n) {
                    }

                    @Override
                    public void cancel() {
                    }
                });
                subscriber.onError(new IllegalStateException("a reply set has one subscriber"));
                return;
            }
            new ReplyPublication<>(this, subscriber, executor).start();
        };
    }

    /** The chain's final result: completes when it arrives, possibly before the last replies. */
    @Override
    public CompletableFuture<ChainResult> result() {
        return result;
    }

    /** Completes (on the client's executor) when the set has ended. */
    @Override
    public CompletableFuture<ReplySet<T>> whenDone() {
        return done;
    }

    /** Waits until the set has ended (replies may still be unread). */
    @Override
    public ReplySet<T> awaitDone() {
        return done.join();
    }

    /** Whether the set has ended: no reply will be added. */
    @Override
    public boolean isDone() {
        lock.lock();
        try {
            return ended;
        } finally {
            lock.unlock();
        }
    }

    /** Whether the set ended before the chain produced everything: by an error, a timeout or a cancel. */
    @Override
    public boolean isPartial() {
        lock.lock();
        try {
            return ended && error != null;
        } finally {
            lock.unlock();
        }
    }

    /** Whether the set was ended by the timeout; the replies received so far are kept. */
    @Override
    public boolean timedOut() {
        lock.lock();
        try {
            return timedOut;
        } finally {
            lock.unlock();
        }
    }

    /** What ended the chain if it failed or timed out (a {@link ChainException}), or {@code null}. */
    @Override
    public @Nullable ChainException error() {
        lock.lock();
        try {
            return error instanceof ChainException ce ? ce : null;
        } finally {
            lock.unlock();
        }
    }

    /** The number of replies received so far. */
    @Override
    public int received() {
        lock.lock();
        try {
            return received;
        } finally {
            lock.unlock();
        }
    }

    /** The most replies that were ever waiting in the buffer at once (for monitoring). */
    @Override
    public int maxBuffered() {
        lock.lock();
        try {
            return maxBuffered;
        } finally {
            lock.unlock();
        }
    }

    /** The most bytes (of reply frames) that were ever waiting in the buffer at once (for monitoring). */
    @Override
    public long maxBufferedBytes() {
        lock.lock();
        try {
            return maxBufferedBytes;
        } finally {
            lock.unlock();
        }
    }

    /** Replies that arrived after the set ended: always 0 unless the termination protocol is broken. */
    @Override
    public int arrivedAfterEnd() {
        lock.lock();
        try {
            return arrivedAfterEnd;
        } finally {
            lock.unlock();
        }
    }
}
