package io.rpcc.client.internal;

import io.rpcc.client.ReplySet;

import java.util.concurrent.Executor;
import java.util.concurrent.Flow;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;

/** Delivers a {@link ReplySet} to one {@link Flow.Subscriber}, as it requests. */
final class ReplyPublication<T> implements Flow.Subscription {
    private final ReplySet<T> replies;
    private final Flow.Subscriber<? super T> subscriber;
    private final Executor executor;
    private final ReentrantLock lock = new ReentrantLock();
    private final Condition demanded = lock.newCondition();
    private final AtomicBoolean cancelled = new AtomicBoolean();
    private long demand;

    ReplyPublication(ReplySet<T> replies, Flow.Subscriber<? super T> subscriber, Executor executor) {
        this.replies = replies;
        this.subscriber = subscriber;
        this.executor = executor;
    }

    void start() {
        executor.execute(this::deliver);
    }

    @Override
    public void request(long n) {
        if (n <= 0) {
            cancel();
            subscriber.onError(new IllegalArgumentException("request(" + n + "): demand must be positive (rule 3.9)"));
            return;
        }
        lock.lock();
        try {
            demand = demand + n < 0 ? Long.MAX_VALUE : demand + n;
            demanded.signalAll();
        } finally {
            lock.unlock();
        }
    }

    @Override
    public void cancel() {
        cancelled.set(true);
        lock.lock();
        try {
            demanded.signalAll();
        } finally {
            lock.unlock();
        }
    }

    private void deliver() {
        subscriber.onSubscribe(this);
        try {
            while (!cancelled.get()) {
                lock.lock();
                try {
                    while (demand == 0 && !cancelled.get()) {
                        demanded.awaitUninterruptibly();
                    }
                } finally {
                    lock.unlock();
                }
                if (cancelled.get()) {
                    return;
                }
                if (!replies.hasMore()) {
                    if (replies.error() != null) {
                        subscriber.onError(replies.error());
                    } else {
                        subscriber.onComplete();
                    }
                    return;
                }
                T next = replies.next();
                lock.lock();
                try {
                    demand--;
                } finally {
                    lock.unlock();
                }
                subscriber.onNext(next);
            }
        } catch (RuntimeException e) {
            cancelled.set(true);
            subscriber.onError(e);
        }
    }
}
