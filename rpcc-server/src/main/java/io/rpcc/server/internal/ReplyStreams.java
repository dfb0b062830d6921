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
    private record Key(long chainId, ChainSecret secret, int hop) {
    }

    private final ConcurrentMap<Key, SendWindow> streams = new ConcurrentHashMap<>();

    /** The window of hop {@code hop} of a chain, registered now if it is not yet. */
    SendWindow open(long chainId, ChainSecret secret, int hop) {
        return streams.computeIfAbsent(new Key(chainId, secret, hop), k -> new SendWindow());
    }

    /** Removes the stream {@code window} of hop {@code hop} of a chain. */
    void remove(long chainId, ChainSecret secret, int hop, SendWindow window) {
        streams.remove(new Key(chainId, secret, hop), window);
    }

    /** Gives a stream the room its originator granted; false if no such stream is open. */
    boolean grant(long chainId, ChainSecret secret, int hop, int replies, long bytes) {
        SendWindow w = streams.get(new Key(chainId, secret, hop));
        return w != null && w.grant(replies, bytes);
    }

    /** Streams registered (for tests). */
    int size() {
        return streams.size();
    }
}
