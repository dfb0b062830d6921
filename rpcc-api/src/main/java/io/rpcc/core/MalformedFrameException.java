package io.rpcc.core;

import org.jspecify.annotations.Nullable;

/**
 * A message of the chain could not be decoded: a corrupt frame, a protocol version mismatch, or a
 * value whose type the receiving node has not registered.
 */
public class MalformedFrameException extends ChainException {
    private static final long serialVersionUID = 1L;

    /** An exception for {@code failure}. */
    public MalformedFrameException(ChainFailure failure) {
        super(failure);
    }

    /** An exception for {@code failure}, caused locally by {@code cause}. */
    public MalformedFrameException(ChainFailure failure, @Nullable Throwable cause) {
        super(failure, cause);
    }

    /** {@link ChainErrorCode#MALFORMED_FRAME}. */
    @Override
    public ChainErrorCode code() {
        return ChainErrorCode.MALFORMED_FRAME;
    }
}
