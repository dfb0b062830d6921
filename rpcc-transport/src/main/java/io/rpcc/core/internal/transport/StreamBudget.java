package io.rpcc.core.internal.transport;

import io.netty.channel.Channel;
import java.net.InetSocketAddress;
import java.util.HashMap;
import java.util.Map;

/**
 * The bytes that inbound data streams may hold at a node ({@link HopStreams}): all of them together
 * at most {@link WireLimits.StreamLimits#bufferBytes}, and those arriving from one remote address at
 * most {@link WireLimits.StreamLimits#bytesPerAddress}, so that one peer holding all it may still
 * leaves room for another peer's streams. Connections from one IP address share one
 * {@linkplain Share share}, whatever node names they give; a connection without an IP address has
 * its own. Thread-safe: reservations are short and take one lock.
 */
final class StreamBudget {
    private final long total;
    private final long perAddress;
    private long reserved;
    private final Map<Object, Share> shares = new HashMap<>();

    /** What the streams from one remote address hold: guarded by the budget's lock. */
    static final class Share {
        private final Object key;
        private long held;
        /** Connections of this address whose streams may reserve; the share is forgotten at 0 with nothing held. */
        private int connections;

        private Share(Object key) {
            this.key = key;
        }

        /** The remote address, as the refusals name it. */
        String address() {
            return key instanceof java.net.InetAddress a ? a.getHostAddress() : String.valueOf(key);
        }
    }

    StreamBudget(WireLimits.StreamLimits limits) {
        this.total = limits.bufferBytes();
        this.perAddress = limits.bytesPerAddress();
    }

    /** The share of {@code ch}'s remote address, which {@code ch} now uses until {@link #leave}. */
    synchronized Share join(Channel ch) {
        Object key = ch.remoteAddress() instanceof InetSocketAddress a && a.getAddress() != null ? a.getAddress() : ch;
        Share s = shares.computeIfAbsent(key, Share::new);
        s.connections++;
        return s;
    }

    /** A connection that {@link #join joined} {@code s} closed. */
    synchronized void leave(Share s) {
        s.connections--;
        forgetIfUnused(s);
    }

    /**
     * Takes up to {@code want} bytes for a stream of {@code s}: what both the node's budget and the
     * address's share have free, or none if that is less than {@code atLeast}; what it took.
     */
    synchronized long reserve(Share s, long want, long atLeast) {
        long take = Math.min(want, Math.min(total - reserved, perAddress - s.held));
        if (take < atLeast || take <= 0) {
            return 0;
        }
        reserved += take;
        s.held += take;
        return take;
    }

    /** Gives back {@code n} bytes a stream of {@code s} held. */
    synchronized void release(Share s, long n) {
        reserved -= n;
        s.held -= n;
        forgetIfUnused(s);
    }

    private void forgetIfUnused(Share s) {
        if (s.connections == 0 && s.held == 0) {
            shares.remove(s.key, s);
        }
    }

    /** Bytes all inbound streams hold now. */
    synchronized long reserved() {
        return reserved;
    }

    /**
     * Why {@code s} cannot have {@code need} bytes now: the node's budget or the address's share, with
     * what each holds, and the setting to raise.
     */
    synchronized String whyNot(Share s, long need) {
        if (total - reserved < need) {
            return "the data streams arriving at it already held " + reserved + " of the " + total
                    + " bytes it gives them in all (NodeBuilder.streamBufferBytes; at a standalone node "
                    + "rpcc.streams.buffer-bytes)";
        }
        return "the data streams arriving at it from " + s.address() + " already held " + s.held + " of the "
                + perAddress + " bytes one address may hold (NodeBuilder.streamBufferShare of streamBufferBytes; at a "
                + "standalone node rpcc.streams.buffer-share)";
    }
}
