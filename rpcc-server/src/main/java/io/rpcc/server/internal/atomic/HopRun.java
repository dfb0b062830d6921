package io.rpcc.server.internal.atomic;

import java.util.concurrent.CompletableFuture;
import org.jspecify.annotations.Nullable;

/**
 * How one attempt of an atomic hop ended ({@link LocalTransactions#run}).
 *
 * @param <T> the service function's result type
 */
public sealed interface HopRun<T extends @Nullable Object> {
    /** The function returned {@code value}; the attempt's writes, hooks and resources are kept in the participant. */
    record Done<T extends @Nullable Object>(T value) implements HopRun<T> {
    }

    /**
     * The function threw {@code error} (or the transaction was aborted: then {@code error} is a
     * {@link TransactionAborted}); the attempt's writes and hooks are dropped, locks it took stay held.
     */
    record Failed<T extends @Nullable Object>(Throwable error) implements HopRun<T> {
    }

    /**
     * The attempt had to wait for a lock; its writes and hooks are dropped. {@code resume} completes
     * when the hop should run again from its start (the lock is now held for it), or exceptionally
     * with {@link TransactionAborted} if the transaction is aborted (or ends) meanwhile. It may
     * complete on the thread that released the lock, inside a commit or abort: run the hop again on an
     * executor, not in the callback.
     */
    record Parked<T extends @Nullable Object>(CompletableFuture<Void> resume) implements HopRun<T> {
    }
}
