package io.rpcc.core.internal.transport;

import io.netty.channel.Channel;
import io.netty.util.AttributeKey;
import io.rpcc.core.Refusal;
import java.util.concurrent.TimeUnit;

/**
 * The frames one connection sent that the node refused without closing the connection, held
 * against an allowance that refills: malformed frames, frames refused as {@link Refusal#CLASS_NAME},
 * {@link Refusal#VALUE_TOO_DEEP}, {@link Refusal#INVALID_ORIGIN}, {@link Refusal#FORGED_FRAME} or
 * {@link Refusal#UNVOUCHED_ADDRESS} ({@link #isBadFrame}), and PINGs dropped unanswered because the peer sent them faster than it read
 * their answers ({@link PingAnswers}). Whatever refuses such a frame tells its connection here
 * ({@link Refusals#countFrame}, {@link ConnectionRefusals#refuse}).
 *
 * <p>A token bucket: a connection starts with {@link WireLimits#maxBadFramesPerConnection} bad frames
 * allowed, each bad frame takes one, and the allowance grows back by
 * {@link WireLimits#badFrameRefillPerMinute} a minute, never past where it started. A bad frame when
 * none is left closes the connection, counted as {@link Refusal#TOO_MANY_BAD_FRAMES}; the decoder
 * reads nothing more from it. So a peer that keeps sending bad frames is cut off after a bounded
 * number, while an occasional refusal between two honest nodes is forgotten. With a refill of 0 the
 * allowance is for the connection's lifetime.
 *
 * <p>Thread-safe (bad frames are refused on the connection's event loop, and its lock is then never
 * contended, but for REQUESTs refused as unvouched after a look-up on the node's executor).
 */
final class BadFrames {
    private static final AttributeKey<BadFrames> KEY = AttributeKey.valueOf("rpcc.badFrames");
    private static final long NANOS_PER_MINUTE = TimeUnit.MINUTES.toNanos(1);

    private final Channel ch;
    private final int burst;
    private final int refillPerMinute;
    private final ConnectionRefusals refusals;
    /** Bad frames still allowed (fractions of a frame grow back between them). */
    private double allowance;
    private long lastNanos;
    private long count;
    /** Set once the connection ran out of its allowance; read by the decoder (on the event loop). */
    private volatile boolean cutOff;

    private BadFrames(Channel ch, int burst, int refillPerMinute, ConnectionRefusals refusals) {
        this.ch = ch;
        this.burst = burst;
        this.refillPerMinute = refillPerMinute;
        this.refusals = refusals;
        this.allowance = burst;
        this.lastNanos = System.nanoTime();
    }

    /**
     * Gives connection {@code ch} (being set up) its allowance: {@code burst} bad frames, refilled by
     * {@code refillPerMinute} a minute; it is closed through {@code refusals}.
     */
    static void track(Channel ch, int burst, int refillPerMinute, ConnectionRefusals refusals) {
        ch.attr(KEY).set(new BadFrames(ch, burst, refillPerMinute, refusals));
    }

    /** {@code ch}'s allowance, or {@code null} for a channel not set up by the node (or none). */
    static BadFrames of(Channel ch) {
        return ch == null ? null : ch.attr(KEY).get();
    }

    /**
     * Whether connection {@code ch} ran out of its allowance: its close may still be on its way (a frame
     * refused off the event loop, an unvouched REQUEST checked on the executor, closes it from there),
     * and the decoder reads nothing more it sent meanwhile.
     */
    static boolean cutOff(Channel ch) {
        BadFrames bad = of(ch);
        return bad != null && bad.cutOff;
    }

    /** Whether this connection ran out of its allowance (see {@link #cutOff(Channel)}). */
    boolean isCutOff() {
        return cutOff;
    }

    /** Whether a refusal of kind {@code kind} is of one frame that leaves its connection open: a bad frame. */
    static boolean isBadFrame(Refusal kind) {
        return switch (kind) {
            case MALFORMED_FRAME, CLASS_NAME, VALUE_TOO_DEEP, INVALID_ORIGIN, FORGED_FRAME, UNVOUCHED_ADDRESS, STREAM_VIOLATION -> true;
            default -> false;
        };
    }

    /** Bad frames counted so far, over the connection's lifetime. */
    synchronized long count() {
        return count;
    }

    /**
     * One bad frame of the connection, {@code what} (for the message if it is cut off): takes one of
     * its allowance, or closes it if none is left.
     */
    void refused(String what) {
        synchronized (this) {
            count++;
            if (cutOff) {
                return;
            }
            long now = System.nanoTime();
            allowance = Math.min(burst, allowance + (double) refillPerMinute * (now - lastNanos) / NANOS_PER_MINUTE);
            lastNanos = now;
            if (allowance >= 1) {
                allowance -= 1;
                return;
            }
            cutOff = true;
        }
        refusals.refuse(ch, Refusal.TOO_MANY_BAD_FRAMES, "more than " + burst + " frames refused on the connection"
                + (refillPerMinute > 0 ? " faster than it is allowed to regain them (" + refillPerMinute + " a minute)"
                : "") + "; the last: " + what + " (maxBadFramesPerConnection, badFrameRefillPerMinute)", true);
    }
}
