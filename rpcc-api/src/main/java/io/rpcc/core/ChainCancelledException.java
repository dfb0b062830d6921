package io.rpcc.core;

import org.jspecify.annotations.Nullable;

/**
 * The chain was cancelled by its originator: {@code future.cancel(true)} on the future of
 * {@code startChain}, {@code ReplySet.cancel()}, or its timeout. At the originator it ends the call
 * (the future's {@code CancellationException} carries it as its cause); at a server, it is what
 * {@link ChainContext#preturn} throws once the chain is cancelled. Results and replies that arrive
 * after it are dropped and counted as late frames.
 */
public class ChainCancelledException extends ChainException {
    private static final long serialVersionUID = 1L;

    /** An exception for {@code failure}. */
    public ChainCancelledException(ChainFailure failure) {
        super(failure);
    }

    /** An exception for {@code failure}, caused locally by {@code cause}. */
    public ChainCancelledException(ChainFailure failure, @Nullable Throwable cause) {
        super(failure, cause);
    }

    /** {@link ChainErrorCode#CANCELLED}. */
    @Override
    public ChainErrorCode code() {
        return ChainErrorCode.CANCELLED;
    }
}
