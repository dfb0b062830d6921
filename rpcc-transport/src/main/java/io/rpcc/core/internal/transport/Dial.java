package io.rpcc.core.internal.transport;

import io.netty.channel.Channel;
import java.util.concurrent.CompletableFuture;

/**
 * A connection this node opens to a peer: the peer it must reach, and the handshake that completes
 * with the connection once the peer's HELLO names that node (or fails, saying why not). An inbound
 * connection has none.
 *
 * @param key the peer node and the address dialed
 * @param handshake completed with the connection when the peer is known to be {@code key.node()}
 */
record Dial(PeerKey key, CompletableFuture<Channel> handshake) {

    /** The name of the node this connection must reach. */
    String peer() {
        return key.node();
    }
}
