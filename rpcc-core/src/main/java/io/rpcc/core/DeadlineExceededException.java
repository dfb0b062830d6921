package io.rpcc.core;

import org.jspecify.annotations.Nullable;

/**
 * A hop arrived at its server after the chain's deadline ({@code ChainCall.deadline(...)} or the
 * call's timeout, whichever is earlier), so its service function did not run. {@link #host()} and
 * {@link #hop()} name that hop; the message says by how much the budget was exceeded. Hops before
 * it ran; none after it did. Give the chain a longer deadline, or make the hops before it faster.
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
