package io.rpcc.core.internal.function;

import io.rpcc.core.ChainErrorCode;
import io.rpcc.core.internal.wire.HopFailure;

/**
 * The cause that marks a failure as one of the moment rather than of the function: a full compile
 * queue, or a limit hit while a loaded node compiled or parsed. {@link FunctionRuntime} does not
 * cache such failures, so the function may load on a later try; the failure also travels marked as
 * of the moment ({@link io.rpcc.core.FailureFields#transientCondition()}), so the originator sees it
 * as retryable.
 */
final class TransientFailure extends RuntimeException {
    private static final long serialVersionUID = 1L;

    private TransientFailure() {
        super("a failure of the moment", null, false, false);
    }

    /** A failure of kind {@code code} marked as transient. */
    static HopFailure of(ChainErrorCode code, String message) {
        return new HopFailure(code, message).asTransient(new TransientFailure());
    }

    /** {@code f} marked as transient. */
    static HopFailure of(HopFailure f) {
        return f.asTransient(new TransientFailure());
    }

    /** Whether {@code f} is marked as transient. */
    static boolean is(HopFailure f) {
        return f.getCause() instanceof TransientFailure;
    }
}
