package io.rpcc.core;

/**
 * A node had to fetch a chaining function from the repository node the chain named (or a client
 * had to upload one to its repository), and could not reach it, it did not answer in time, or it
 * answered something that is not a repository's answer. {@link #host()} is the node that tried.
 */
public class RepositoryUnavailableException extends ChainException {
    private static final long serialVersionUID = 1L;

    /** An exception for {@code failure}. */
    public RepositoryUnavailableException(ChainFailure failure) {
        super(failure);
    }

    /** An exception for {@code failure}, caused locally by {@code cause}. */
    public RepositoryUnavailableException(ChainFailure failure, Throwable cause) {
        super(failure, cause);
    }

    /** {@link ChainErrorCode#REPOSITORY_UNAVAILABLE}. */
    @Override
    public ChainErrorCode code() {
        return ChainErrorCode.REPOSITORY_UNAVAILABLE;
    }
}
