package io.rpcc.core.internal.transport;

import io.netty.channel.Channel;
import io.netty.util.AttributeKey;
import io.netty.util.concurrent.FastThreadLocal;
import io.rpcc.core.Refusal;

/**
 * The frames one connection sent that the node refused without closing the connection: malformed
 * ones, and well-formed ones refused while they were handed to the node on the connection's event
 * loop ({@link Refusal#CLASS_NAME}, {@link Refusal#VALUE_TOO_DEEP}, {@link Refusal#INVALID_ORIGIN},
 * {@link Refusal#FORGED_FRAME}: {@link Refusals#count} tells the connection whose frame is being
 * handed on, see {@link #handing}). Past the node's limit
 * ({@link WireLimits#maxBadFramesPerConnection}) the connection is closed and counted as
 * {@link Refusal#TOO_MANY_BAD_FRAMES}; the decoder reads nothing more from it. Used on the
 * connection's event loop only.
 */
final class BadFrames {
    private static final AttributeKey<BadFrames> KEY = AttributeKey.valueOf("rpcc.badFrames");
    /** The connection whose frame the event loop hands on now, if any. */
    private static final FastThreadLocal<BadFrames> HANDING = new FastThreadLocal<>();

    private final Channel ch;
    private final int limit;
    private final ConnectionRefusals refusals;
    private int count;

    private BadFrames(Channel ch, int limit, ConnectionRefusals refusals) {
        this.ch = ch;
        this.limit = limit;
        this.refusals = refusals;
    }

    /** Gives connection {@code ch} (being set up) its count, of at most {@code limit} bad frames. */
    static void track(Channel ch, int limit, ConnectionRefusals refusals) {
        ch.attr(KEY).set(new BadFrames(ch, limit, refusals));
    }

    /** {@code ch}'s count, or {@code null} for a channel not set up by the node. */
    static BadFrames of(Channel ch) {
        return ch.attr(KEY).get();
    }

    /**
     * Marks the current thread as handing on a frame of {@code frames}' connection (or of none, if
     * {@code null}); returns what it handed on before, to restore.
     */
    static BadFrames handing(BadFrames frames) {
        BadFrames before = HANDING.getIfExists();
        HANDING.set(frames);
        return before;
    }

    /** A refusal of kind {@code kind} was counted on this thread: a bad frame of the connection being handed on, if any. */
    static void counted(Refusal kind) {
        if (isBadFrame(kind)) {
            BadFrames current = HANDING.getIfExists();
            if (current != null) {
                current.refused();
            }
        }
    }

    private static boolean isBadFrame(Refusal kind) {
        return switch (kind) {
            case MALFORMED_FRAME, CLASS_NAME, VALUE_TOO_DEEP, INVALID_ORIGIN, FORGED_FRAME -> true;
            default -> false;
        };
    }

    /** Bad frames counted so far. */
    int count() {
        return count;
    }

    /**
     * A frame of the connection was dropped without a refusal being counted for it (a PING sent while
     * the answer to an earlier one was still owed: {@link PingAnswers}); it counts as a bad frame.
     */
    void refusedUncounted() {
        refused();
    }

    private void refused() {
        if (++count == limit + 1) {
            refusals.refuse(ch, Refusal.TOO_MANY_BAD_FRAMES, "more than " + limit + " frames refused on the "
                    + "connection (malformed, forged or otherwise invalid)", true);
        }
    }
}
