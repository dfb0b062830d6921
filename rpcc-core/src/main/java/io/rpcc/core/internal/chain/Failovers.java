package io.rpcc.core.internal.chain;

import io.rpcc.core.internal.wire.HopFailure;
import io.rpcc.core.spi.EngineSpi;
import java.net.InetSocketAddress;

/**
 * Where a node tells the failovers of one request it sends ({@link HopRouter#forward(String,
 * io.rpcc.core.internal.wire.ChainRequest, Failovers)}): at a client, the chain's decorators (for its
 * first hop); at a server, the decorators of the hop that sends the request. Called on the thread
 * that sends the request on to the next endpoint, which may be an event loop: must be quick, never
 * block, and be thread-safe; what it throws is logged and changes nothing.
 */
@EngineSpi
@FunctionalInterface
public interface Failovers {
    /** Tells nothing. */
    Failovers NONE = (server, failed, next, failure) -> { };

    /**
     * The request for server {@code server} could not be handed to its endpoint {@code failed}, for
     * the reason {@code failure} gives (unreachable: no connection, a failed handshake, or the
     * connection failed before the frame was written), and is now sent to {@code next}.
     */
    void failedOver(String server, InetSocketAddress failed, InetSocketAddress next, HopFailure failure);
}
