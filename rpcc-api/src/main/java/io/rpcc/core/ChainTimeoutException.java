package io.rpcc.core;

import org.jspecify.annotations.Nullable;

/**
 * The originator gave up waiting for the chain's result. The chain may still be running somewhere;
 * a late result is dropped. {@link #path()} is empty since the originator cannot know it.
 */
public class ChainTimeoutException extends ChainException {
    private static final long serialVersionUID = 1L;

    /** An exception for {@code failure}. */
    public ChainTimeoutException(ChainFailure failure) {
        super(failure);
    }

    /** An exception for {@code failure}, caused locally by {@code cause}. */
    public ChainTimeoutException(ChainFailure failure, @Nullable Throwable cause) {
        super(failure, cause);
    }

    /** {@link ChainErrorCode#TIMEOUT}. */
    @Override
    public ChainErrorCode code() {
        return ChainErrorCode.TIMEOUT;
    }
}
