package io.rpcc.core.internal.transport;

import io.netty.channel.Channel;
import io.rpcc.core.ChainErrorCode;
import io.rpcc.core.Disconnect;
import io.rpcc.core.Refusal;
import io.rpcc.core.internal.wire.HopFailure;
import java.net.InetSocketAddress;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * How many connections a node opens to others ({@link WireLimits.OutboundConnectionLimits}): at most
 * {@code maxDialsInProgress} attempts under way at once, and at most {@code maxOutboundConnections}
 * connections it opened held open (attempts under way included). At the connection bound, the least
 * recently used connection that has carried no frame for {@link #IDLE_NANOS} is let go to make room
 * ({@link GracefulClose}: it counts no more at once, its socket closes once the peer answered; the
 * next chain to that peer connects again); if none is idle, or too many attempts are under way,
 * the new connection is not opened: the send fails at once with a {@link HopFailure} of
 * {@link ChainErrorCode#HOP_UNREACHABLE} (so a name with several endpoints fails over, and the chain's
 * originator is told as for an unreachable hop), counted as {@link Refusal#TOO_MANY_OUTBOUND_CONNECTIONS}
 * and warned about at most once every 10 s. Connections a peer opened (inbound) are bounded apart
 * ({@link InboundConnections}) and do not count here. Thread-safe.
 */
final class OutboundBounds {
    /** How long an outbound connection must have carried no frame (PINGs aside) to be closed to make room. */
    static final long IDLE_NANOS = TimeUnit.SECONDS.toNanos(1);
    private static final Logger log = LoggerFactory.getLogger(NodeTransport.class);

    private final String nodeName;
    private final WireLimits.OutboundConnectionLimits limits;
    private final ConnectionRefusals refused;
    private final RateLimitedWarnings warnings = new RateLimitedWarnings(log, TimeUnit.SECONDS.toNanos(10));
    private final AtomicInteger dials = new AtomicInteger();
    private final Set<Channel> open = ConcurrentHashMap.newKeySet();
    private final AtomicInteger reclaimed = new AtomicInteger();

    /** The bounds of node {@code nodeName}, counting what they refuse in {@code refused}. */
    OutboundBounds(String nodeName, WireLimits.OutboundConnectionLimits limits, ConnectionRefusals refused) {
        this.nodeName = nodeName;
        this.limits = limits;
        this.refused = refused;
    }

    /**
     * Takes a place for an attempt to connect to {@code key}: {@code null} if it may start (then
     * {@link #dialEnded} must follow), else the failure to give instead.
     */
    HopFailure startDial(PeerKey key) {
        int now;
        do { // never above the bound, even for a moment
            now = dials.get();
            if (now >= limits.maxDialsInProgress()) {
                return refuse(key, now + " connection attempts are under way, the most it makes at once "
                        + "(maxDialsInProgress " + limits.maxDialsInProgress() + ")");
            }
        } while (!dials.compareAndSet(now, now + 1));
        while (open.size() + dials.get() > limits.maxOutboundConnections()) {
            if (!closeIdle()) {
                dials.decrementAndGet();
                return refuse(key, open.size() + " connections it opened are open and none has been idle for "
                        + TimeUnit.NANOSECONDS.toMillis(IDLE_NANOS) + " ms to close in its place (maxOutboundConnections "
                        + limits.maxOutboundConnections() + ")");
            }
        }
        return null;
    }

    /** The attempt {@link #startDial} let start ended: with connection {@code ch} open, or {@code null} (it failed). */
    void dialEnded(Channel ch) {
        dials.decrementAndGet();
        if (ch != null && ch.isActive()) {
            open.add(ch);
            ch.closeFuture().addListener(f -> open.remove(ch));
            if (!ch.isActive()) { // closed before the listener was added
                open.remove(ch);
            }
        }
    }

    /** Outbound connections open now. */
    int open() {
        return open.size();
    }

    /** Connection attempts under way now. */
    int dialsInProgress() {
        return dials.get();
    }

    /** Idle connections closed so far to make room for new ones. */
    int reclaimed() {
        return reclaimed.get();
    }

    /** Closes the least recently used idle outbound connection; false if none is idle. */
    private boolean closeIdle() {
        long newest = System.nanoTime() - IDLE_NANOS;
        Channel lru = null;
        long lruUsed = Long.MAX_VALUE;
        for (Channel ch : open) {
            ConnectionHealth health = ch.attr(ConnectionAttributes.HEALTH).get();
            long used = health == null ? Long.MIN_VALUE : health.lastUsedNanos();
            if (used - newest <= 0 && (lru == null || used - lruUsed < 0)) {
                lru = ch;
                lruUsed = used;
            }
        }
        if (lru == null) {
            return false;
        }
        if (open.remove(lru)) {
            reclaimed.incrementAndGet();
            log.debug("node '{}' closes its idle connection to {} to make room for another (maxOutboundConnections {})",
                    nodeName, lru.remoteAddress(), limits.maxOutboundConnections());
            Disconnects.closing(lru, Disconnect.RECLAIMED);
            GracefulClose.goAway(lru); // (out of the count at once; the socket closes once the peer answers)
        }
        return true;
    }

    private HopFailure refuse(PeerKey key, String why) {
        refused.count(Refusal.TOO_MANY_OUTBOUND_CONNECTIONS);
        InetSocketAddress address = key.address();
        String message = "node '" + nodeName + "' does not connect to '" + key.node() + "' at " + address + ": " + why
                + "; raise the bound if this node talks to that many peers at once, else something (a flood of"
                + " chains naming distinct addresses?) makes it dial too many";
        warnings.warn(null, "{} (refused: {})", message, Refusal.TOO_MANY_OUTBOUND_CONNECTIONS);
        return new HopFailure(ChainErrorCode.HOP_UNREACHABLE, message);
    }
}
