package io.rpcc.core.internal.transport;

import io.rpcc.core.internal.wire.ChainErrorFrame;
import io.rpcc.core.internal.wire.ChainRequest;
import io.rpcc.core.internal.wire.ChainResultFrame;

/**
 * Receives the chain frames that arrive at a node. Called on an event loop: implementations hand
 * work to other threads and return at once.
 */
public interface InboundListener {
    /** A hop to run. */
    void onRequest(ChainRequest request);

    /** The result of a chain this node started. */
    void onResult(ChainResultFrame result);

    /** The failure of a chain this node started. */
    void onError(ChainErrorFrame error);
}
