package io.rpcc.core.internal.chain;

import io.rpcc.core.BranchOutcome;
import io.rpcc.core.ChainException;
import io.rpcc.core.internal.wire.ErrorCode;
import io.rpcc.core.internal.wire.HopFailure;
import java.util.List;

/**
 * A merge function that gives up on a failed branch by rethrowing its
 * {@link BranchOutcome#failure()}: the chain fails with that branch's failure, with its own code
 * (so a branch that could not reach its server stays retryable), as the default merge would, rather
 * than as a failure of the merge function. The same at a merge host and in interactive mode.
 */
public final class RethrownBranchFailure {
    private RethrownBranchFailure() {
    }

    /**
     * The failure to report when the merge function over {@code outcomes} failed with {@code f}: if
     * what it threw is the failure of one of those branches, that failure; else {@code f}.
     */
    public static HopFailure of(HopFailure f, Object outcomes) {
        if (f.code() != ErrorCode.CHAINING_FUNCTION_FAILED || !(f.getCause() instanceof ChainException thrown)
                || !(outcomes instanceof List<?> list)) {
            return f;
        }
        for (Object o : list) {
            if (o instanceof BranchOutcome b && b.failure() == thrown) {
                return new HopFailure(ErrorCode.fromWire(thrown.code().number()), thrown.exceptionName(),
                        "the merge function gave up on branch " + b.branch() + ", which failed at '" + thrown.host()
                        + "' (hop " + thrown.hop() + "): " + thrown.remoteMessage(), List.of(),
                        thrown.failure().fields(), f);
            }
        }
        return f;
    }
}
