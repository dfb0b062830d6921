package io.rpcc.core;

import org.jspecify.annotations.Nullable;

/**
 * A chain called a service function that the server does not have.
 */
public class UnknownServiceFunctionException extends ChainException {
    private static final long serialVersionUID = 1L;

    /** An exception for {@code failure}. */
    public UnknownServiceFunctionException(ChainFailure failure) {
        super(failure);
    }

    /** An exception for {@code failure}, caused locally by {@code cause}. */
    public UnknownServiceFunctionException(ChainFailure failure, @Nullable Throwable cause) {
        super(failure, cause);
    }

    /** {@link ChainErrorCode#UNKNOWN_SERVICE_FUNCTION}. */
    @Override
    public ChainErrorCode code() {
        return ChainErrorCode.UNKNOWN_SERVICE_FUNCTION;
    }
}
