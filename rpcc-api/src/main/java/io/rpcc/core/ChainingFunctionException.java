package io.rpcc.core;

import org.jspecify.annotations.Nullable;

/**
 * A chaining function threw or returned something that is not a {@link NextHop}.
 * {@link #exceptionName()} and {@link #remoteMessage()} are those of the exception it threw.
 */
public class ChainingFunctionException extends ChainException {
    private static final long serialVersionUID = 1L;

    /** An exception for {@code failure}. */
    public ChainingFunctionException(ChainFailure failure) {
        super(failure);
    }

    /** An exception for {@code failure}, caused locally by {@code cause}. */
    public ChainingFunctionException(ChainFailure failure, @Nullable Throwable cause) {
        super(failure, cause);
    }

    /** {@link ChainErrorCode#CHAINING_FUNCTION_FAILED}. */
    @Override
    public ChainErrorCode code() {
        return ChainErrorCode.CHAINING_FUNCTION_FAILED;
    }
}
