package io.rpcc.core.internal.transport;

import java.io.IOException;

/**
 * Why a frame never reached its peer: its write on the connection failed (the connection closed,
 * or was going away, before the frame was written in full). A peer decodes only whole frames, so
 * the peer never acted on it, and it may safely be sent again on another connection. Carried as
 * the cause of the {@link io.rpcc.core.internal.wire.HopFailure} a send fails with
 * ({@link Resend#unsent}).
 */
final class UnsentFrame extends IOException {
    private static final long serialVersionUID = 1L;

    /** The frame's write failed with {@code cause} (or, with no cause, for the reason {@code message}). */
    UnsentFrame(String message, Throwable cause) {
        super(message, cause);
    }

    @Override
    public synchronized Throwable fillInStackTrace() {
        return this; // (a fact about a write, not a place in the code)
    }
}
