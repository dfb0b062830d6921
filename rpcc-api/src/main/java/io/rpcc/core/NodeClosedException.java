package io.rpcc.core;

import org.jspecify.annotations.Nullable;

/**
 * A node the chain depended on was closed: the originator itself (its {@code close()} ended every
 * chain it had in flight at once, rather than letting them time out), or a server that was closed
 * while it ran one of the chain's hops ({@link #host()} names it; the hop may have run in part). A
 * chain started on a closed node fails with this at once. See {@link NodeShuttingDownException} for
 * a hop a draining server refused.
 */
public class NodeClosedException extends ChainException {
    private static final long serialVersionUID = 1L;

    /** An exception for {@code failure}. */
    public NodeClosedException(ChainFailure failure) {
        super(failure);
    }

    /** An exception for {@code failure}, caused locally by {@code cause}. */
    public NodeClosedException(ChainFailure failure, @Nullable Throwable cause) {
        super(failure, cause);
    }

    /** {@link ChainErrorCode#NODE_CLOSED}. */
    @Override
    public ChainErrorCode code() {
        return ChainErrorCode.NODE_CLOSED;
    }
}
