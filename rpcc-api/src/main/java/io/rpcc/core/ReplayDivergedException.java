package io.rpcc.core;

import org.jspecify.annotations.Nullable;

/**
 * A {@link SequentialChain} was not deterministic: replayed at a hop, it made another call at a
 * position than the one it made there before (another server or service function), or returned
 * before making a call it had made. The message names the position, the recorded call and the new
 * one; {@link #hop()} and {@link #host()} name where the replay ran. Make the chain's code depend
 * only on its input and the results of its calls (docs/guides/sequential-chains.md).
 */
public class ReplayDivergedException extends ChainingFunctionException {
    private static final long serialVersionUID = 1L;

    /** An exception for {@code failure}. */
    public ReplayDivergedException(ChainFailure failure) {
        super(failure);
    }

    /** An exception for {@code failure}, caused locally by {@code cause}. */
    public ReplayDivergedException(ChainFailure failure, @Nullable Throwable cause) {
        super(failure, cause);
    }

    /** {@link ChainErrorCode#REPLAY_DIVERGED}. */
    @Override
    public ChainErrorCode code() {
        return ChainErrorCode.REPLAY_DIVERGED;
    }
}
