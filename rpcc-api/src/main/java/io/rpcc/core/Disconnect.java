package io.rpcc.core;

/**
 * Why one of a node's connections closed. Each close is counted once per node, by its first cause
 * ({@code RpccServer.stats().disconnects()}, {@code RpccClient.stats().disconnects()}), so that
 * monitoring tells peers that go away from connections the node cut itself.
 */
public enum Disconnect {
    /** The peer closed it, or it ended without an error and without a reason of this node's. */
    PEER_CLOSED,
    /** An I/O error (e.g. a reset), a failed TLS handshake, or an error in the connection's pipeline. */
    ERROR,
    /**
     * This node closed it, refusing the peer: a protocol violation, a limit, a timeout (idle, silent
     * peer, stalled writes) or an impersonation; the refusal is counted by its kind ({@link Refusal}).
     */
    REFUSED,
    /**
     * A connection this node opened whose rpcc handshake failed: the node there was another than
     * expected, or did not answer in time.
     */
    HANDSHAKE_FAILED,
    /** An idle connection this node opened, closed to make room for another ({@code NodeBuilder.maxOutboundConnections}). */
    RECLAIMED,
    /** This node closed (or was closing when it opened). */
    NODE_CLOSED
}
