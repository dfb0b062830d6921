package io.rpcc.core;

import org.jspecify.annotations.Nullable;

/**
 * A message of the chain (parameters, state, console or result) is larger than the maximum frame
 * size of the sending or receiving node.
 */
public class FrameTooLargeException extends ChainException {
    private static final long serialVersionUID = 1L;

    /** An exception for {@code failure}. */
    public FrameTooLargeException(ChainFailure failure) {
        super(failure);
    }

    /** An exception for {@code failure}, caused locally by {@code cause}. */
    public FrameTooLargeException(ChainFailure failure, @Nullable Throwable cause) {
        super(failure, cause);
    }

    /** {@link ChainErrorCode#FRAME_TOO_LARGE}. */
    @Override
    public ChainErrorCode code() {
        return ChainErrorCode.FRAME_TOO_LARGE;
    }
}
