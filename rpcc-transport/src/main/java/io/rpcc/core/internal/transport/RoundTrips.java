package io.rpcc.core.internal.transport;

import io.netty.channel.Channel;
import io.netty.util.AttributeKey;
import io.rpcc.core.internal.wire.PingFrame;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/**
 * PINGs and the round-trip times of a node's connections: each connection's {@link RoundTripTime},
 * measured by its handshake ({@link Handshakes}) and by PINGs, sent when a quiet connection is
 * checked ({@link ConnectionHealth}, counted) or to refresh a stale estimate when a chain goes out;
 * a peer's PING answered, an answer to this node's PING measured.
 */
final class RoundTrips {
    /**
     * A connection's round-trip estimate older than this is refreshed by a PING when a chain is sent
     * over it (one PING on its way at a time), so that it follows the load of a busy connection.
     */
    static final long REFRESH_NANOS = TimeUnit.MILLISECONDS.toNanos(100);
    private static final AttributeKey<RoundTripTime> RTT = AttributeKey.valueOf("rpcc.rtt");
    private static final AttributeKey<LinkThroughput> THROUGHPUT = AttributeKey.valueOf("rpcc.throughput");

    private final FrameWriter writer;
    private final AtomicLong pingsSent = new AtomicLong();

    /** Round trips measured by PINGs written with {@code writer}. */
    RoundTrips(FrameWriter writer) {
        this.writer = writer;
    }

    /** Gives a connection being set up its (empty) estimate. */
    void track(Channel ch) {
        ch.attr(RTT).set(new RoundTripTime());
    }

    /** The round-trip estimate of {@code ch}. */
    static RoundTripTime of(Channel ch) {
        RoundTripTime rtt = ch.attr(RTT).get();
        if (rtt == null) { // (set when the connection is set up; a channel of another origin has none)
            rtt = ch.attr(RTT).setIfAbsent(new RoundTripTime());
            return rtt != null ? rtt : ch.attr(RTT).get();
        }
        return rtt;
    }

    /** The throughput estimate of {@code ch} in the direction this node sends. */
    static LinkThroughput throughputOf(Channel ch) {
        LinkThroughput t = ch.attr(THROUGHPUT).get();
        if (t == null) {
            t = ch.attr(THROUGHPUT).setIfAbsent(new LinkThroughput());
            return t != null ? t : ch.attr(THROUGHPUT).get();
        }
        return t;
    }

    /**
     * A frame of {@code bytes} was just handed to {@code ch}'s writes: if it is large
     * ({@link LinkThroughput#PROBE_MIN_BYTES}), both HELLOs went and no probe is on its way, a PING
     * follows it, whose answer measures the connection's throughput ({@link LinkThroughput}). Not
     * counted as a health PING; it does not touch the round-trip estimate. It reaches the peer after
     * the frame, so after any measuring PING sent before the frame has been answered: the peer still
     * has at most two of this node's PINGs to answer at a time (see {@link PingAnswers}), save a
     * health PING crossing a probe.
     */
    void probe(Channel ch, long bytes) {
        if (bytes < LinkThroughput.PROBE_MIN_BYTES || ConnectionAttributes.peer(ch) == null) {
            return;
        }
        LinkThroughput t = throughputOf(ch);
        RoundTripTime rtt = of(ch);
        long now = System.nanoTime();
        if (!t.mayProbe(now)) {
            return;
        }
        if (rtt.pingPayload() == now) { // (told apart from the measuring PING by its payload)
            now++;
        }
        t.probeSent(now, bytes);
        writer.writeOwn(ch, new PingFrame(false, now));
    }

    /** Sends a health PING on {@code ch} (on its event loop) if both HELLOs went; returns whether it did. */
    boolean ping(Channel ch) {
        if (!measure(ch)) {
            return false;
        }
        pingsSent.incrementAndGet();
        return true;
    }

    /**
     * Sends a PING on {@code ch} if both HELLOs went, to measure the connection's round trip with its
     * answer; returns whether it did. Not counted as a health PING.
     */
    boolean measure(Channel ch) {
        if (ConnectionAttributes.peer(ch) == null) {
            return false;
        }
        long now = System.nanoTime();
        of(ch).pingSent(now);
        writer.writeOwn(ch, new PingFrame(false, now));
        return true;
    }

    /** See {@link NodeTransport#oneWayNanos}. */
    long oneWayNanos(Channel ch) {
        RoundTripTime rtt = of(ch);
        long now = System.nanoTime();
        if (rtt.stale(now, REFRESH_NANOS) && rtt.mayMeasure(now) && ch.isActive()) {
            // looked at again on the event loop: many chains sent at once all find the estimate stale
            // before the first PING goes, and each sent one (hundreds on their way, most of them dropped
            // by the peer as bad frames while its answers waited)
            ch.eventLoop().execute(() -> {
                if (rtt.mayMeasure(System.nanoTime())) {
                    measure(ch);
                }
            });
        }
        return rtt.oneWayNanos();
    }

    /**
     * A PING read on {@code ch} (on its event loop): a peer's is answered (once both HELLOs went), one
     * round trip at a time ({@link PingAnswers}); an answer to this node's measured.
     */
    void onPing(Channel ch, PingFrame p) {
        if (!p.ack() && ConnectionAttributes.peer(ch) != null) {
            PingAnswers.of(ch, writer).onPing(p.payload());
        } else if (p.ack()) {
            long now = System.nanoTime();
            RoundTripTime rtt = of(ch);
            LinkThroughput t = ch.attr(THROUGHPUT).get();
            if (t == null || !t.answered(p.payload(), now, rtt.minNanos())) { // (a probe's is no round-trip sample)
                rtt.answered(p.payload(), now);
            }
        }
    }

    /** Health PINGs sent so far. */
    long pingsSent() {
        return pingsSent.get();
    }
}
