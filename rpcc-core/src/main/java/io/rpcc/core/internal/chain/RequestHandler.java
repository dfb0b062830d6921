package io.rpcc.core.internal.chain;

import io.rpcc.core.internal.wire.ChainRequest;
import java.util.concurrent.CompletableFuture;

/** Runs the hops that arrive at a node (servers); called on an event loop, must return at once. */
@FunctionalInterface
public interface RequestHandler {
    /**
     * Handles a hop request that arrived at {@code node}; {@code control} holds its deadline and
     * cancellation, and must be handed to {@link Node#hopEnded} once the hop is quiet.
     */
    void onRequest(Node node, ChainRequest request, HopControl control, long arrivedNanos);

    /** Hops that arrived and have not finished (their work and replies included); what a shutdown waits for. */
    default int hopsInFlight() {
        return 0;
    }

    /**
     * {@code node} is closing: reports every hop still running to its originator as failed (if the
     * hop has not handed the chain on yet). The future completes when those reports are written or
     * have failed.
     */
    default CompletableFuture<Void> abandonHops(Node node) {
        return CompletableFuture.completedFuture(null);
    }
}
