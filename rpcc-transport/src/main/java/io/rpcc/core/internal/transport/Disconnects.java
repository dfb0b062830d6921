package io.rpcc.core.internal.transport;

import io.netty.channel.Channel;
import io.netty.util.AttributeKey;
import io.rpcc.core.Disconnect;
import java.util.EnumMap;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLongArray;
import java.util.function.BooleanSupplier;

/**
 * The node's connections that closed, by cause ({@link Disconnect}). Code that closes a connection
 * for a reason of this node's marks it first ({@link #closing}); when it closes, the first mark
 * counts, else whether the node was closing, whether an error was seen on it, or else the peer.
 * Thread-safe.
 */
final class Disconnects {
    private static final AttributeKey<Disconnect> CAUSE = AttributeKey.valueOf("rpcc.disconnect");
    private static final Disconnect[] CAUSES = Disconnect.values();

    private final AtomicLongArray counts = new AtomicLongArray(CAUSES.length);
    private final BooleanSupplier nodeClosed;

    /** Counts, taking a close while {@code nodeClosed} as {@link Disconnect#NODE_CLOSED}. */
    Disconnects(BooleanSupplier nodeClosed) {
        this.nodeClosed = nodeClosed;
    }

    /** Marks that {@code ch} is about to be closed for {@code cause} (an earlier mark stays). */
    static void closing(Channel ch, Disconnect cause) {
        ch.attr(CAUSE).setIfAbsent(cause);
    }

    /** Counts {@code ch}'s close when it comes. */
    void track(Channel ch) {
        ch.closeFuture().addListener(f -> {
            Disconnect cause = ch.attr(CAUSE).get();
            if (cause == null) {
                cause = nodeClosed.getAsBoolean() ? Disconnect.NODE_CLOSED : Disconnect.PEER_CLOSED;
            }
            counts.incrementAndGet(cause.ordinal());
        });
    }

    /** The closes counted so far, by cause; causes never seen are absent. */
    Map<Disconnect, Long> snapshot() {
        Map<Disconnect, Long> m = new EnumMap<>(Disconnect.class);
        for (Disconnect d : CAUSES) {
            long n = counts.get(d.ordinal());
            if (n > 0) {
                m.put(d, n);
            }
        }
        return m;
    }
}
