package io.rpcc.core.internal.transport;

import io.netty.channel.Channel;
import io.netty.util.AttributeKey;
import io.rpcc.core.internal.wire.Hello;

/**
 * What the parts of a node's transport keep on each connection and read from one another, as
 * attributes of its Netty channel: the peer's HELLO once it arrived ({@link Handshakes}), the key
 * an outbound or adopted connection is kept under ({@link PeerTable}), the TLS failure that closed
 * it, and its {@link ConnectionHealth}. What only one part reads is kept by that part.
 */
final class ConnectionAttributes {
    /** The peer's HELLO: set when it arrived (and, with TLS, was authenticated); absent before. */
    static final AttributeKey<Hello> PEER = AttributeKey.valueOf("rpcc.peer");
    /** What an outbound connection, or an inbound one adopted for sending, is kept under. */
    static final AttributeKey<PeerKey> KEY = AttributeKey.valueOf("rpcc.peerKey");
    /** The TLS failure that closed the connection, if one did. */
    static final AttributeKey<Throwable> TLS_FAILURE = AttributeKey.valueOf("rpcc.tlsFailure");
    /** The connection's health watch (set when its pipeline is set up). */
    static final AttributeKey<ConnectionHealth> HEALTH = AttributeKey.valueOf("rpcc.health");

    private ConnectionAttributes() {
    }

    /** The HELLO of {@code ch}'s peer, or {@code null} before it arrived. */
    static Hello peer(Channel ch) {
        return ch.attr(PEER).get();
    }

    /** Tells {@code ch}'s health watch, if it has one, that a frame other than a PING went either way. */
    static void used(Channel ch) {
        ConnectionHealth health = ch.attr(HEALTH).get();
        if (health != null) {
            health.used();
        }
    }
}
