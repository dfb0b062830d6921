package io.rpcc.core;

import org.jspecify.annotations.Nullable;

/**
 * The chain reached its hop limit (default 2000) and was ended: usually a chaining function that
 * loops (paper section 6).
 */
public class HopLimitExceededException extends ChainException {
    private static final long serialVersionUID = 1L;

    /** An exception for {@code failure}. */
    public HopLimitExceededException(ChainFailure failure) {
        super(failure);
    }

    /** An exception for {@code failure}, caused locally by {@code cause}. */
    public HopLimitExceededException(ChainFailure failure, @Nullable Throwable cause) {
        super(failure, cause);
    }

    /** {@link ChainErrorCode#HOP_LIMIT_EXCEEDED}. */
    @Override
    public ChainErrorCode code() {
        return ChainErrorCode.HOP_LIMIT_EXCEEDED;
    }
}
