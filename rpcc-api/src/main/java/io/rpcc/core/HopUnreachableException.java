package io.rpcc.core;

import org.jspecify.annotations.Nullable;

/**
 * The next hop's server could not be reached: the connection failed, was refused, or closed before
 * the chain was handed over. {@link #host()} is the node that tried to reach it.
 */
public class HopUnreachableException extends ChainException {
    private static final long serialVersionUID = 1L;

    /** An exception for {@code failure}. */
    public HopUnreachableException(ChainFailure failure) {
        super(failure);
    }

    /** An exception for {@code failure}, caused locally by {@code cause}. */
    public HopUnreachableException(ChainFailure failure, @Nullable Throwable cause) {
        super(failure, cause);
    }

    /** {@link ChainErrorCode#HOP_UNREACHABLE}. */
    @Override
    public ChainErrorCode code() {
        return ChainErrorCode.HOP_UNREACHABLE;
    }
}
