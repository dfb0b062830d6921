package io.rpcc.core;

/**
 * A server had to fetch a chaining function from the repository node the chain named, and could
 * not reach it (or it did not answer in time). {@link #host()} is the server that tried.
 */
public class RepositoryUnavailableException extends ChainException {
    private static final long serialVersionUID = 1L;

    /** An exception for {@code failure}. */
    public RepositoryUnavailableException(ChainFailure failure) {
        super(failure);
    }

    /** {@link ChainErrorCode#REPOSITORY_UNAVAILABLE}. */
    @Override
    public ChainErrorCode code() {
        return ChainErrorCode.REPOSITORY_UNAVAILABLE;
    }
}
