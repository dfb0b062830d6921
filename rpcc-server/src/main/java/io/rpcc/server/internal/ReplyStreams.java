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

    /**
     * The window of the replies of hop {@code hop} of a chain at {@code host} (this node, or, for the
     * replies a creator passes on, the node of its sub-chain's hop), registered now if it is not yet.
     * Hops of the same number running here at once (branches of a split chain: the originator sees
     * them as one stream, hop and host) share it until the last one releases it.
     */
    SendWindow open(long chainId, ChainSecret secret, int hop, String host) {
        return streams.compute(new Key(chainId, secret, hop, host), (k, w) -> {
            SendWindow open = w == null ? new SendWindow() : w;
            open.users++;
            return open;
        });
    }

    /**
     * A hop whose stream is {@code window} ends: returns the room to give back, {replies, bytes}: what
     * is left if no other hop shares the stream, which is then removed and closed; else nothing.
     */
    long[] release(long chainId, ChainSecret secret, int hop, String host, SendWindow window) {
        boolean[] shared = {false};
        streams.computeIfPresent(new Key(chainId, secret, hop, host), (k, w) -> {
            if (w == window && --w.users > 0) {
                shared[0] = true;
                return w;
            }
            return w == window ? null : w;
        });
        return shared[0] ? new long[] {0, 0} : window.close();
    }

    /** Gives a stream the room its originator granted; false if no such stream is open. */
    boolean grant(long chainId, ChainSecret secret, int hop, String host, int replies, long bytes) {
        SendWindow w = streams.get(new Key(chainId, secret, hop, host));
        return w != null && w.grant(replies, bytes);
    }

    /** Streams registered (for tests). */
    int size() {
        return streams.size();
    }
}
