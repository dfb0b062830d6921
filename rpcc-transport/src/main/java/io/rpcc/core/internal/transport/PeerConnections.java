package io.rpcc.core.internal.transport;

import io.netty.channel.Channel;
import io.rpcc.core.internal.wire.HopFailure;
import java.net.InetSocketAddress;
import java.util.concurrent.CompletableFuture;

/**
 * The connection to each peer, reused by every chain that sends to it: an open one from the
 * {@link PeerTable}, or a new one opened by the {@link Dialer}, one attempt at a time per peer and
 * address. Attempts to a peer that keeps failing are spaced out ({@link ReconnectBackoff}), and the
 * node's attempts and the connections it opened are bounded ({@link OutboundBounds}).
 */
final class PeerConnections {
    private final PeerTable table;
    private final ReconnectBackoff backoff;
    private final Dialer dialer;
    private final TransportLifecycle lifecycle;
    private final OutboundBounds bounds;

    /** Connections of a node set up by {@code config}, opened by {@code dialer} within {@code bounds}. */
    PeerConnections(NodeTransport.Config config, PeerTable table, Dialer dialer, TransportLifecycle lifecycle,
                    OutboundBounds bounds) {
        this.table = table;
        this.bounds = bounds;
        this.backoff = new ReconnectBackoff(config.nodeName(), config.connections());
        this.dialer = dialer;
        this.lifecycle = lifecycle;
    }

    /** See {@link NodeTransport#connect}. */
    CompletableFuture<Channel> connect(String peer, InetSocketAddress address) {
        PeerKey key = new PeerKey(peer, address);
        while (true) {
            CompletableFuture<Channel> existing = table.get(key);
            if (existing != null && !(existing.isDone() && (existing.isCompletedExceptionally() || !existing.join().isActive()
                    || GracefulClose.goingAway(existing.join())))) {
                return existing;
            }
            HopFailure heldBack = backoff.holdBack(key);
            if (heldBack != null) {
                return CompletableFuture.failedFuture(heldBack);
            }
            HopFailure bounded = bounds.startDial(key);
            if (bounded != null) {
                return CompletableFuture.failedFuture(bounded);
            }
            CompletableFuture<Channel> fresh = new CompletableFuture<>();
            if (!table.claim(key, existing, fresh)) {
                bounds.dialEnded(null); // another thread was first: use its connection
            } else {
                // the backoff knows of a failure before anyone waiting for the connection hears of it
                CompletableFuture<Channel> handshake = new CompletableFuture<>();
                handshake.whenComplete((ch, e) -> {
                    bounds.dialEnded(e == null ? ch : null);
                    if (e != null) {
                        if (!lifecycle.closed()) {
                            backoff.failed(key, e);
                        }
                        table.remove(key, fresh);
                        fresh.completeExceptionally(e);
                    } else {
                        backoff.succeeded(key);
                        fresh.complete(ch);
                    }
                });
                dialer.open(new Dial(key, handshake));
                return fresh;
            }
        }
    }
}
