package io.rpcc.core;

import org.jspecify.annotations.Nullable;

/**
 * The chain did not end by its deadline ({@code ChainCall.deadline(...)} or the call's timeout,
 * whichever is earlier). Either its originator ended it at the deadline and cancelled what still
 * ran ({@link #hop()} 0, {@link #host()} the originator), or a hop would have started after the
 * deadline, so its service function did not run ({@link #host()} and {@link #hop()} name that hop;
 * the message says by how much it was late). No hop starts after the deadline. Give the chain a
 * later deadline, or make its hops faster.
 */
public class DeadlineExceededException extends ChainException {
    private static final long serialVersionUID = 1L;

    /** An exception for {@code failure}. */
    public DeadlineExceededException(ChainFailure failure) {
        super(failure);
    }

    /** An exception for {@code failure}, caused locally by {@code cause}. */
    public DeadlineExceededException(ChainFailure failure, @Nullable Throwable cause) {
        super(failure, cause);
    }

    /** {@link ChainErrorCode#DEADLINE_EXCEEDED}. */
    @Override
    public ChainErrorCode code() {
        return ChainErrorCode.DEADLINE_EXCEEDED;
    }
}
