package io.rpcc.core.internal.chain;

import io.rpcc.core.internal.wire.ChainRequest;

/** Runs the hops that arrive at a node (servers); called on an event loop, must return at once. */
@FunctionalInterface
public interface RequestHandler {
    /**
     * Handles a hop request that arrived at {@code node}; {@code control} holds its deadline and
     * cancellation, and must be handed to {@link Node#hopEnded} once the hop is quiet.
     */
    void onRequest(Node node, ChainRequest request, HopControl control, long arrivedNanos);
}
