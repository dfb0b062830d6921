package io.rpcc.client.internal;

import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.function.Supplier;

/**
 * A future whose {@link #cancel} also stops the work behind it: it runs the canceller, which stops
 * the work and returns why (a {@code ChainCancelledException}), and the future then fails with a
 * {@link CancellationException} caused by it. Completions that the canceller itself triggers (the
 * chain ending with that exception) do not overtake the cancellation.
 *
 * @param <T> the result type
 */
public final class CancellableFuture<T> extends CompletableFuture<T> {
    /**
     * What a canceller returns when the work could not be stopped because its outcome is already settled
     * (an atomic chain that decided to commit): the cancel then has no effect and returns {@code false},
     * and the future completes with that outcome.
     */
    public static final Throwable TOO_LATE = new Throwable("too late to cancel: the outcome is settled", null, false, false) {
    };

    private final Supplier<Throwable> canceller;
    private volatile boolean cancelling;

    /** A future whose cancel runs {@code canceller}. */
    public CancellableFuture(Supplier<Throwable> canceller) {
        this.canceller = canceller;
    }

    @Override
    public boolean cancel(boolean mayInterruptIfRunning) {
        if (isDone()) {
            return false;
        }
        cancelling = true;
        Throwable why = canceller.get();
        if (why == TOO_LATE) {
            cancelling = false;
            return false;
        }
        CancellationException c = new CancellationException(why != null ? why.getMessage() : "cancelled");
        if (why != null) {
            c.initCause(why);
        }
        super.completeExceptionally(c);
        return isCancelled();
    }

    @Override
    public boolean completeExceptionally(Throwable ex) {
        if (cancelling && !(ex instanceof CancellationException)) {
            return false;
        }
        return super.completeExceptionally(ex);
    }

    /** What cancelled {@code f} (the cause of its {@link CancellationException}), or {@code null}. */
    public static Throwable cancellationCause(CompletableFuture<?> f) {
        return f.handle((r, e) -> e instanceof CancellationException ce ? ce.getCause() : null).getNow(null);
    }
}
