package io.rpcc.client.internal;

import io.rpcc.core.ChainException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;

/**
 * The work that chaining functions run at the client (interactive mode) started and that may still
 * send partial replies, counted as at a server: one unit for the driver itself, released when it
 * ends ({@link #release()}), and one for each piece of work while it runs. It is
 * {@link #quiet() quiet} when the count is back to zero, or fails with the first failure of that work.
 */
final class LocalWork {
    private final AtomicLong count = new AtomicLong(1);
    private final CompletableFuture<Void> quiet = new CompletableFuture<>();
    private final AtomicReference<ChainException> failure = new AtomicReference<>();

    /** Completes when every unit is released; fails with the first {@link #failed} failure. */
    CompletableFuture<Void> quiet() {
        return quiet;
    }

    /**
     * Takes a unit for work that starts, unless the count is already back to zero (then returns
     * {@code false}: the chain has finished).
     */
    boolean tryRaise() {
        while (true) {
            long c = count.get();
            if (c == 0) {
                return false;
            }
            if (count.compareAndSet(c, c + 1)) {
                return true;
            }
        }
    }

    /** Releases a unit; at zero, {@link #quiet()} completes, or fails with the first failure. */
    void release() {
        if (count.decrementAndGet() == 0) {
            ChainException e = failure.get();
            if (e == null) {
                quiet.complete(null);
            } else {
                quiet.completeExceptionally(e);
            }
        }
    }

    /** Some of the work failed with {@code e} (the first failure is the one the chain ends with). */
    void failed(ChainException e) {
        failure.compareAndSet(null, e);
    }
}
