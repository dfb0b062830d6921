package io.rpcc.core.internal.transport;

import io.netty.channel.Channel;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;

/**
 * The connections a node sends on, one per {@link PeerKey}: each a connection on its way (its
 * handshake not done) or open, whether this node opened it ({@link PeerConnections}) or adopted a
 * connection that a peer opened and TLS authenticated ({@link Handshakes}). A connection leaves the
 * table when it closes; the table is emptied when the node closes. Thread-safe.
 */
final class PeerTable {
    private final ConcurrentMap<PeerKey, CompletableFuture<Channel>> peers = new ConcurrentHashMap<>();

    /** The connection kept under {@code key}, or {@code null}. */
    CompletableFuture<Channel> get(PeerKey key) {
        return peers.get(key);
    }

    /**
     * Keeps {@code fresh} under {@code key} in place of {@code existing} ({@code null}: of nothing);
     * false if the table no longer holds {@code existing} there (another thread was first).
     */
    boolean claim(PeerKey key, CompletableFuture<Channel> existing, CompletableFuture<Channel> fresh) {
        return existing == null ? peers.putIfAbsent(key, fresh) == null : peers.replace(key, existing, fresh);
    }

    /** Drops {@code connection} from under {@code key}, if still there. */
    void remove(PeerKey key, CompletableFuture<Channel> connection) {
        peers.remove(key, connection);
    }

    /** Keeps {@code ch}, open, under {@code key} unless the table holds a connection there; true if it did. */
    boolean adopt(PeerKey key, Channel ch) {
        return peers.putIfAbsent(key, CompletableFuture.completedFuture(ch)) == null;
    }

    /** {@code ch} closed: dropped from the table, if it is what the table holds under its key. */
    void closed(Channel ch) {
        PeerKey key = ch.attr(ConnectionAttributes.KEY).get();
        if (key != null) {
            CompletableFuture<Channel> f = peers.get(key);
            if (f != null && f.isDone() && !f.isCompletedExceptionally() && f.join() == ch) {
                peers.remove(key, f);
            }
        }
    }

    /** Forgets every connection (the node closed them). */
    void clear() {
        peers.clear();
    }
}
