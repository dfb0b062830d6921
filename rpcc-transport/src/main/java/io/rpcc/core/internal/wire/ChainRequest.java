package io.rpcc.core.internal.wire;

import io.rpcc.core.ChainCaller;
import io.rpcc.core.ChainState;
import io.rpcc.core.spi.EngineSpi;
import org.jspecify.annotations.Nullable;

/**
 * A REQUEST frame: run one hop.
 *
 * @param header routing and debugging data
 * @param params the service function's parameters
 * @param state the chaining function's state
 * @param decodeError set by the decoder when the header was read but the user values were not
 * @param arrivedNanos when the frame's first bytes were read ({@link System#nanoTime()}), for a request
 *     that arrived; 0 for one made at this node. The hop's budget counts from then, so that the time the
 *     frame waited to be read in full and decoded is charged to it.
 * @param caller who asked for the hop, as the receiving node checked it (never sent: set where the
 *     request arrives), or {@code null} before that
 * @param stream the data stream the hop's service function reads as it arrives (header field 22), or
 *     {@code null}: none
 */
@EngineSpi
public record ChainRequest(ChainHeader header, Object params, ChainState state, HopFailure decodeError,
                           long arrivedNanos, @Nullable ChainCaller caller, @Nullable RequestStream stream) {
    /** A request without a data stream. */
    public ChainRequest(ChainHeader header, Object params, ChainState state, HopFailure decodeError,
                        long arrivedNanos, @Nullable ChainCaller caller) {
        this(header, params, state, decodeError, arrivedNanos, caller, null);
    }

    /** A request made at this node (not arrived). */
    public ChainRequest(ChainHeader header, Object params, ChainState state, HopFailure decodeError) {
        this(header, params, state, decodeError, 0, null);
    }

    /** A request as it arrived at {@code arrivedNanos}, its caller not checked yet. */
    public ChainRequest(ChainHeader header, Object params, ChainState state, HopFailure decodeError,
                        long arrivedNanos) {
        this(header, params, state, decodeError, arrivedNanos, null);
    }

    /** This request as it arrived at {@code nanos}. */
    public ChainRequest arrivedAt(long nanos) {
        return new ChainRequest(header, params, state, decodeError, nanos, caller, stream);
    }

    /** This request, asked for by {@code checked}. */
    public ChainRequest from(ChainCaller checked) {
        return new ChainRequest(header, params, state, decodeError, arrivedNanos, checked, stream);
    }

    /** This request carrying {@code next} as its data stream (or none). */
    public ChainRequest withStream(@Nullable RequestStream next) {
        return new ChainRequest(header, params, state, decodeError, arrivedNanos, caller, next);
    }

    /** This request with {@code next} as its header, its values, stream and arrival kept. */
    public ChainRequest withHeader(ChainHeader next) {
        return new ChainRequest(next, params, state, decodeError, arrivedNanos, caller, stream);
    }
}
