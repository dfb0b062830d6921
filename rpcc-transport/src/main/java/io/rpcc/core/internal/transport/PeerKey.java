package io.rpcc.core.internal.transport;

import java.net.InetSocketAddress;

/**
 * What a connection to a peer is kept under: the peer's node name and the address it is reached
 * at. A connection is used to send to {@code node} only if it goes to the address the sender's
 * resolver (or the chain's header, for an originator) gives for that name now: when the resolver
 * moves a name, the connection to the old address is no longer used for it.
 */
record PeerKey(String node, InetSocketAddress address) {
}
