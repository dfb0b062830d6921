package io.rpcc.server.internal;

import io.netty.channel.Channel;
import io.rpcc.core.SubChainReplyHandler;
import io.rpcc.core.internal.chain.FailureLog;
import io.rpcc.core.internal.chain.Node;
import io.rpcc.core.internal.wire.ChainErrorFrame;
import io.rpcc.core.internal.wire.ChainHeader;
import io.rpcc.core.internal.wire.ChainSecret;
import io.rpcc.core.internal.wire.QuietFrame;
import io.rpcc.core.internal.wire.TxFrames;
import io.rpcc.core.internal.wire.ReplyFrame;
import io.rpcc.core.internal.wire.ReturnPoint;
import io.rpcc.core.internal.wire.WindowUpdateFrame;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The {@link ReplyRelay}s of the sub-chains started at a server whose replies go to it, by chain id
 * and the sub-chain's reply secret (which tells apart the sub-chains one server started in the same
 * chain). A relay lives as long as its parked hop could (the chain's budget plus the grace): replies
 * of a sub-chain's hops may outlive the sub-chain. Cancelling a chain here stops its relays but keeps
 * them, stopped, until then: the sub-chain's hops go on sending this node their replies, credit and
 * requests for room until the cancel reaches them, and those frames are dropped here as the late
 * frames of a cancelled chain, not handed to the node's originator table (which would count them as
 * forged: it knows neither the chain nor the sub-chain's reply secret). Replies that cannot be passed
 * on are counted and logged.
 */
final class ReplyRelays {
    private static final Logger log = LoggerFactory.getLogger(FailureLog.LOGGER);
    private static final long SWEEP_INTERVAL_NANOS = TimeUnit.SECONDS.toNanos(1);

    private record Key(long chainId, ChainSecret secret) {
    }

    private final Node node;
    private final ReplyStreams streams;
    private final ConcurrentMap<Key, ReplyRelay> relays = new ConcurrentHashMap<>();
    private final AtomicLong lost = new AtomicLong();
    private volatile long lastSweep = System.nanoTime();

    ReplyRelays(Node node, ReplyStreams streams) {
        this.node = node;
        this.streams = streams;
    }

    /**
     * Opens the relay of the sub-chain that the hop of {@code creator} starts, returning to
     * {@code point}; {@code handler} (or {@code null}) sees its replies; kept for {@code budgetNanos}
     * plus the grace.
     */
    void open(ChainHeader creator, ReturnPoint point, SubChainReplyHandler handler, long budgetNanos, long nowNanos) {
        if (nowNanos - lastSweep >= SWEEP_INTERVAL_NANOS) {
            sweep(nowNanos);
        }
        long keep = Math.min(Math.max(budgetNanos, 0), ChainTrails.MAX_RETENTION_NANOS - ChainTrails.GRACE_NANOS)
                + ChainTrails.GRACE_NANOS;
        ChainSecret secret = point.replySecret(creator.attemptSecret());
        relays.put(new Key(creator.chainId(), secret),
                new ReplyRelay(node, streams, this, creator, secret, handler, nowNanos + keep));
    }

    /**
     * Hands {@code frame} (REPLY, QUIET, ERROR or a WINDOW_UPDATE request, on an event loop) to the relay
     * it is for; false if it is for none here (then it is for a chain this node originated, or forged).
     */
    boolean relay(Object frame, Channel from) {
        if (relays.isEmpty()) {
            return false;
        }
        ReplyRelay r = switch (frame) {
            case ReplyFrame f -> relays.get(new Key(f.chainId(), f.secret()));
            case QuietFrame f -> relays.get(new Key(f.chainId(), f.secret()));
            case ChainErrorFrame f -> relays.get(new Key(f.chainId(), f.secret()));
            case WindowUpdateFrame f -> f.grant() ? null : relays.get(new Key(f.chainId(), f.secret()));
            case TxFrames.Vote f -> relays.get(new Key(f.chainId(), f.secret()));
            default -> null;
        };
        if (r == null) {
            return false;
        }
        if (r.cancelled()) {
            return true; // a late frame of a cancelled chain: dropped
        }
        r.arrived(frame, from);
        return true;
    }

    /**
     * Stops the relays of chain {@code origin#chainId} (cancelled); they stay, stopped, until they
     * expire, to drop what the sub-chains' hops still send.
     */
    void forgetChain(String origin, long chainId) {
        for (ReplyRelay r : relays.values()) {
            if (r.chainId() == chainId && r.origin().equals(origin)) {
                r.cancel();
            }
        }
    }

    /** Counts and logs a reply (or credit) of the sub-chain started at {@code creator} that could not be passed on. */
    void lost(ChainHeader creator, String what) {
        lost.incrementAndGet();
        log.warn("chain {}#{}: at '{}', the creator of a sub-chain (hop {}): {}", creator.origin(), creator.chainId(),
                node.name(), creator.hop(), what);
    }

    /** Replies (or credit) of sub-chains that could not be passed on from here. */
    long lost() {
        return lost.get();
    }

    /** Relays open now, stopped ones included (expired ones forgotten first). */
    int size() {
        sweep(System.nanoTime());
        return relays.size();
    }

    private void sweep(long nowNanos) {
        lastSweep = nowNanos;
        relays.values().removeIf(r -> r.expired(nowNanos));
    }
}
