package io.rpcc.core.internal.transport;

import io.netty.channel.Channel;
import io.rpcc.core.Disconnect;
import io.rpcc.core.Refusal;
import io.rpcc.core.internal.wire.Hello;
import java.net.SocketAddress;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * How a node's transport refuses what a peer does: each refusal counted in the node's
 * {@link Refusals}, warned about (at most once per remote address every 10 s:
 * {@link RateLimitedWarnings}, in {@link NodeTransport}'s log) and, if it says so, the connection
 * closed.
 */
final class ConnectionRefusals {
    private static final Logger log = LoggerFactory.getLogger(NodeTransport.class);

    private final String nodeName;
    private final Refusals refusals;
    private final RateLimitedWarnings warnings = new RateLimitedWarnings(log, TimeUnit.SECONDS.toNanos(10));

    /** Refusals of node {@code nodeName}, counted in {@code refusals}. */
    ConnectionRefusals(String nodeName, Refusals refusals) {
        this.nodeName = nodeName;
        this.refusals = refusals;
    }

    /** The node's name. */
    String nodeName() {
        return nodeName;
    }

    /**
     * Counts a refusal on {@code ch}, warns (rate-limited) and closes the connection if {@code close};
     * a refused frame that leaves the connection open is held against its allowance of bad frames
     * ({@link BadFrames}), past which it is closed.
     */
    void refuse(Channel ch, Refusal kind, String reason, boolean close) {
        refusals.count(kind);
        Hello h = ConnectionAttributes.peer(ch);
        warnings.warn(ch.remoteAddress(), "node '{}' refused {} from {}: {}{}", nodeName, kind,
                h != null ? "'" + h.node() + "' at " + ch.remoteAddress() : ch.remoteAddress(), reason,
                close ? "; connection closed" : "");
        if (close) {
            Disconnects.closing(ch, Disconnect.REFUSED);
            ch.close();
        } else {
            refusals.againstConnection(kind, ch);
        }
    }

    /**
     * A frame read from {@code ch} was refused as {@code kind} while it was decoded, and counted
     * node-wide there (values refused by {@code Serialization}): held against {@code ch}'s allowance
     * of bad frames.
     */
    void refusedWhileDecoded(Channel ch, Refusal kind) {
        refusals.againstConnection(kind, ch);
    }

    /** Counts one refusal of kind {@code kind}, for a caller that warns in its own words. */
    void count(Refusal kind) {
        refusals.count(kind);
    }

    /** Logs a warning about {@code peer} ({@link RateLimitedWarnings#warn}). */
    void warn(SocketAddress peer, String message, Object... args) {
        warnings.warn(peer, message, args);
    }
}
