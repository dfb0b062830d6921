package io.rpcc.core.internal.chain;

import io.rpcc.core.BranchOutcome;
import io.rpcc.core.ChainErrorCode;
import io.rpcc.core.ChainException;
import io.rpcc.core.ChainFailure;
import io.rpcc.core.ConsoleLine;
import io.rpcc.core.HopTiming;
import io.rpcc.core.internal.wire.HopFailure;
import io.rpcc.core.internal.wire.LocatedFailure;
import io.rpcc.core.spi.EngineSpi;
import java.util.ArrayList;
import java.util.List;

/**
 * A merge function gave up on a failed branch by rethrowing its {@link BranchOutcome#failure()}:
 * the chain fails with that branch's failure, as the default merge would, rather than as a failure
 * of the merge function: with the branch's type and code (so a branch that could not reach its
 * server stays retryable), and naming, in its host, hop and path as in its message, the place where
 * the branch failed, not the merge host; a line of its details says which merge gave up on it. The
 * same at a merge host and in interactive mode.
 */
@EngineSpi
public final class RethrownBranchFailure extends RuntimeException {
    private static final long serialVersionUID = 1L;

    private final transient ChainException branchFailure;
    private final String branch;
    private final String mergeHost;
    private final int mergeHop;

    private RethrownBranchFailure(ChainException branchFailure, String branch, String mergeHost, int mergeHop,
                                  HopFailure thrown) {
        super("the merge function gave up on branch " + branch, thrown, false, false);
        this.branchFailure = branchFailure;
        this.branch = branch;
        this.mergeHost = mergeHost;
        this.mergeHop = mergeHop;
    }

    /**
     * What to report when the merge function over {@code outcomes}, run at {@code host} on hop
     * {@code hop}, failed with {@code f}: if what it threw is the failure of one of those branches,
     * a {@link RethrownBranchFailure}; else {@code f}.
     */
    public static RuntimeException of(HopFailure f, Object outcomes, String host, int hop) {
        if (f.code() != ChainErrorCode.CHAINING_FUNCTION_FAILED || !(f.getCause() instanceof ChainException thrown)
                || !(outcomes instanceof List<?> list)) {
            return f;
        }
        for (Object o : list) {
            if (o instanceof BranchOutcome b && b.failure() == thrown) {
                return new RethrownBranchFailure(thrown, b.branch(), host, hop, f);
            }
        }
        return f;
    }

    /**
     * The chain's failure, with the merge hop's {@code console} and {@code timings}: the branch's
     * code, type, host, hop, path and fields, its message saying that the merge gave up on it.
     */
    public LocatedFailure located(List<ConsoleLine> console, List<HopTiming> timings) {
        ChainFailure f = branchFailure.failure();
        List<String> details = new ArrayList<>(f.details());
        details.add("the merge function at '" + mergeHost + "' (hop " + mergeHop + ") gave up on branch " + branch
                + " by rethrowing its failure");
        return new LocatedFailure(branchFailure.code(), new ChainFailure(f.exceptionName(), "the merge function gave "
                + "up on branch " + branch + ", which failed at '" + f.host() + "' (hop " + f.hop() + "): " + f.message(),
                f.host(), f.hop(), f.path(), details, console, timings, f.fields()));
    }
}
