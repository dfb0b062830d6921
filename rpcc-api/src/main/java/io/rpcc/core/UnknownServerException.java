package io.rpcc.core;

import org.jspecify.annotations.Nullable;

/**
 * A chain named a server that the node's {@link NameResolver} cannot resolve. {@link #host()} is
 * the node whose resolver failed.
 */
public class UnknownServerException extends ChainException {
    private static final long serialVersionUID = 1L;

    /** An exception for {@code failure}. */
    public UnknownServerException(ChainFailure failure) {
        super(failure);
    }

    /** An exception for {@code failure}, caused locally by {@code cause}. */
    public UnknownServerException(ChainFailure failure, @Nullable Throwable cause) {
        super(failure, cause);
    }

    /** {@link ChainErrorCode#UNKNOWN_SERVER}. */
    @Override
    public ChainErrorCode code() {
        return ChainErrorCode.UNKNOWN_SERVER;
    }
}
