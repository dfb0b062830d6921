package io.rpcc.core.internal.transport;

import io.netty.channel.socket.SocketChannel;
import io.rpcc.core.Disconnect;
import io.rpcc.core.Refusal;
import java.util.concurrent.TimeUnit;

/**
 * Takes the connections peers open to a node: within the node's limits on inbound connections
 * ({@link InboundConnections}; over them, refused and closed at once), set up as inbound
 * ({@link ConnectionPipeline}), and closed if no HELLO arrives within the handshake timeout.
 */
final class InboundAcceptor {
    private final NodeTransport.Config config;
    private final InboundConnections inbound;
    private final ConnectionRefusals refusals;
    private final ConnectionPipeline pipeline;

    /** Accepts for a node set up by {@code config}. */
    InboundAcceptor(NodeTransport.Config config, ConnectionRefusals refusals, ConnectionPipeline pipeline) {
        this.config = config;
        this.inbound = new InboundConnections(config.limits());
        this.refusals = refusals;
        this.pipeline = pipeline;
    }

    /**
     * Takes an inbound connection if the node's connection limits allow it (else closes it at
     * once), and closes it if it sends no HELLO within the handshake timeout.
     */
    void admit(SocketChannel ch) {
        Refusal refused = inbound.admit(ch);
        if (refused != null) {
            refusals.count(refused);
            refusals.warn(ch.remoteAddress(), "node '{}' refused a connection from {}: {}", config.nodeName(),
                    ch.remoteAddress(), refused == Refusal.TOO_MANY_CONNECTIONS
                            ? "already " + config.limits().maxInboundConnections() + " inbound connections"
                            : "already " + config.limits().maxInboundConnectionsPerAddress()
                            + " inbound connections from that address");
            Disconnects.closing(ch, Disconnect.REFUSED);
            ch.close();
            return;
        }
        pipeline.setUp(ch, null);
        long timeout = config.limits().handshakeTimeout().toNanos();
        var check = ch.eventLoop().schedule(() -> {
            if (ch.isActive() && ConnectionAttributes.peer(ch) == null) {
                refusals.refuse(ch, Refusal.HANDSHAKE_TIMEOUT, "no HELLO within "
                        + config.limits().handshakeTimeout().toMillis() + " ms", true);
            }
        }, timeout, TimeUnit.NANOSECONDS);
        ch.closeFuture().addListener(f -> check.cancel(false));
    }
}
