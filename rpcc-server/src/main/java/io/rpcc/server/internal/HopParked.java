package io.rpcc.server.internal;

import java.util.concurrent.CompletableFuture;

/**
 * Thrown out of a hop of an atomic chain whose service function must wait for a lock: its attempt
 * was discarded, and the hop gives its thread back. The hop stays among the hops running here (its
 * heartbeats, deadline and cancel still work) and runs again, from its start, on a thread of the
 * node's executor when {@link #resume()} completes (the lock granted, or the transaction ended).
 */
final class HopParked extends RuntimeException {
    private static final long serialVersionUID = 1L;
    private final transient CompletableFuture<Void> resume;

    HopParked(CompletableFuture<Void> resume) {
        super("parked", null, false, false);
        this.resume = resume;
    }

    /** Completes when the hop is to run again. */
    CompletableFuture<Void> resume() {
        return resume;
    }
}
