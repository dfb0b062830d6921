package io.rpcc.core.internal.wire;

/**
 * A PING frame: connection health, not about any chain. A node sends a PING on a connection on which
 * it has read nothing for its ping interval; the peer answers at once with a PING of the same
 * {@code payload} and {@code ack} set. A node that reads nothing at all on the connection within its
 * ping timeout after sending a PING closes it (the peer is silent: dead, partitioned away or stalled).
 *
 * @param ack {@code false}: a question; {@code true}: the answer to one
 * @param payload opaque to the receiver, echoed in the answer
 */
public record PingFrame(boolean ack, long payload) {
}
