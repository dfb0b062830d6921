package io.rpcc.core;

import org.jspecify.annotations.Nullable;

/**
 * A service function threw. {@link #exceptionName()} and {@link #remoteMessage()} are those of
 * the exception it threw; {@link ChainFailure#details()} holds its stack trace.
 */
public class ServiceFunctionException extends ChainException {
    private static final long serialVersionUID = 1L;

    /** An exception for {@code failure}. */
    public ServiceFunctionException(ChainFailure failure) {
        super(failure);
    }

    /** An exception for {@code failure}, caused locally by {@code cause}. */
    public ServiceFunctionException(ChainFailure failure, @Nullable Throwable cause) {
        super(failure, cause);
    }

    /** {@link ChainErrorCode#SERVICE_FUNCTION_FAILED}. */
    @Override
    public ChainErrorCode code() {
        return ChainErrorCode.SERVICE_FUNCTION_FAILED;
    }
}
