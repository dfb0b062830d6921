package io.rpcc.server.internal;

import io.rpcc.core.internal.wire.ChainSecret;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;

/**
 * The reply streams of a node that wait for, or hold, room granted by their originators, so that a
 * grant (a WINDOW_UPDATE from the originator) finds its stream. A stream is registered when it first
 * asks for room and removed when it ends; a grant for a stream that is not here is given back.
 */
final class ReplyStreams {
    private record Key(long chainId, ChainSecret secret, int hop, String host) {
    }

    private final ConcurrentMap<Key, SendWindow> streams = new ConcurrentHashMap<>();
    private final SendWindow.Waits waits = new SendWindow.Waits();

    /**
     * The window of the replies of hop {@code hop} of a chain at {@code host} (this node, or, for the
     * replies a creator passes on, the node of its sub-chain's hop), registered now if it is not yet.
     * Hops of the same number running here at once (branches of a split chain: the originator sees
     * them as one stream, hop and host) share it until the last one releases it.
     */
    SendWindow open(long chainId, ChainSecret secret, int hop, String host) {
        Key key = new Key(chainId, secret, hop, host);
        while (true) {
            SendWindow w = streams.computeIfAbsent(key, k -> new SendWindow(waits));
            if (w.retain()) {
                return w;
            }
            streams.remove(key, w); // its last user closed it just now: a new stream under the same name
        }
    }

    /**
     * A hop whose stream is {@code window} ends: if no other hop shares the stream, it is closed, the
     * room it has left goes back through {@code giveBack} (before a stream under the same name can be
     * opened again, see {@link SendWindow#release}), and it is removed.
     */
    void release(long chainId, ChainSecret secret, int hop, String host, SendWindow window, SendWindow.Asker giveBack) {
        if (window.release(giveBack)) {
            streams.remove(new Key(chainId, secret, hop, host), window);
        }
    }

    /** Gives a stream the room its originator granted; false if no such stream is open. */
    boolean grant(long chainId, ChainSecret secret, int hop, String host, int replies, long bytes) {
        SendWindow w = streams.get(new Key(chainId, secret, hop, host));
        return w != null && w.grant(replies, bytes);
    }

    /** Replies of this node's streams that found no room in their originators' windows and waited. */
    long replyWaits() {
        return waits.waits();
    }

    /** The time those replies waited, in all. */
    long replyWaitNanos() {
        return waits.nanos();
    }

    /** Streams registered (for tests). */
    int size() {
        return streams.size();
    }
}
