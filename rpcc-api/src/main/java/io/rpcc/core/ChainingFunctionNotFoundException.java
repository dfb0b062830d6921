package io.rpcc.core;

/**
 * A chain referred to a chaining function by id, and the repository it named does not have it
 * (never uploaded, or uploaded to another repository). {@link #host()} is the server that looked.
 */
public class ChainingFunctionNotFoundException extends ChainException {
    private static final long serialVersionUID = 1L;

    /** An exception for {@code failure}. */
    public ChainingFunctionNotFoundException(ChainFailure failure) {
        super(failure);
    }

    /** {@link ChainErrorCode#FUNCTION_NOT_FOUND}. */
    @Override
    public ChainErrorCode code() {
        return ChainErrorCode.FUNCTION_NOT_FOUND;
    }
}
