package io.rpcc.core;

import org.jspecify.annotations.Nullable;

/**
 * A node that is shutting down ({@code shutdown(Duration)}: it lets the work it has finish and takes
 * no new work) refused the chain: {@link #host()} is that node. If it is a server, its service
 * function did not run, so the chain can be retried safely at another server or once the node is
 * back; if it is the originator, start the chain on another client.
 */
public class NodeShuttingDownException extends NodeClosedException {
    private static final long serialVersionUID = 1L;

    /** An exception for {@code failure}. */
    public NodeShuttingDownException(ChainFailure failure) {
        super(failure);
    }

    /** An exception for {@code failure}, caused locally by {@code cause}. */
    public NodeShuttingDownException(ChainFailure failure, @Nullable Throwable cause) {
        super(failure, cause);
    }

    /** {@link ChainErrorCode#NODE_SHUTTING_DOWN}. */
    @Override
    public ChainErrorCode code() {
        return ChainErrorCode.NODE_SHUTTING_DOWN;
    }
}
