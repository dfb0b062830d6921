package io.rpcc.client.internal;

import io.rpcc.core.internal.chain.ChainOriginator;
import io.rpcc.core.internal.chain.ReplyWindow;

/**
 * Where the partial replies delivered to one call are told, as they are: the call's decorators
 * ({@link DecoratedCall#replied}).
 */
@FunctionalInterface
public interface ReplyTap {
    /** Tells nothing. */
    ReplyTap NONE = bytes -> { };

    /** A reply of {@code bytes} (its frame's length; 0 if produced at this node) was delivered to the call. */
    void replied(int bytes);

    /** {@code sink}, telling this tap of each reply before handing it on (the same window). */
    default ChainOriginator.ReplySink tapping(ChainOriginator.ReplySink sink) {
        if (this == NONE) {
            return sink;
        }
        return new ChainOriginator.ReplySink() {
            @Override
            public void onReply(Object value, int hop, String host, int bytes) {
                replied(bytes);
                sink.onReply(value, hop, host, bytes);
            }

            @Override
            public ReplyWindow window() {
                return sink.window();
            }
        };
    }
}
