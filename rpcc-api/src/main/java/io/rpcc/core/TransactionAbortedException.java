package io.rpcc.core;

import org.jspecify.annotations.Nullable;

/**
 * An atomic chain ({@code ChainCall.atomic()}) was aborted: what its hops changed in transactional
 * state was rolled back at every server it ran at, its held partial replies were dropped, and none
 * of its {@code onCommit} hooks ran. The message says why and where ({@link #host()} and
 * {@link #hop()} name the hop, when one is to blame): a hop failed and the failure reached the
 * client (then the cause is that failure, as a {@link ChainException}); a server voted no (a
 * resource manager refused to prepare); the chain was wounded by an older transaction and too little
 * of its deadline was left to run it again; or a server it ran at was lost before the decision.
 * Whether to run the chain again is your call: its service functions ran and were rolled back.
 */
public class TransactionAbortedException extends ChainException {
    private static final long serialVersionUID = 1L;

    /** An exception for {@code failure}. */
    public TransactionAbortedException(ChainFailure failure) {
        super(failure);
    }

    /** An exception for {@code failure}, caused by {@code cause} (the chain's own failure, if any). */
    public TransactionAbortedException(ChainFailure failure, @Nullable Throwable cause) {
        super(failure, cause);
    }

    /** {@link ChainErrorCode#ABORTED}. */
    @Override
    public ChainErrorCode code() {
        return ChainErrorCode.ABORTED;
    }
}
