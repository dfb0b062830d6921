package io.rpcc.core;

/**
 * A nested {@link SubChain} could not be started or could not return to the chain that started it:
 * it would have nested more than 64 levels deep, or the server that created it no longer holds the
 * chain it returns to (the chain's deadline plus 5 s passed, the chain was cancelled, or the server
 * was restarted). {@link #host()} and {@link #hop()} name where that was found. Failures of the
 * sub-chain's own hops are not this: they keep their own type (a {@link ServiceFunctionException}
 * thrown in a sub-chain reaches the originator as one, naming the sub-chain's hop and host).
 */
public class SubChainException extends ChainException {
    private static final long serialVersionUID = 1L;

    /** An exception for {@code failure}. */
    public SubChainException(ChainFailure failure) {
        super(failure);
    }

    /** {@link ChainErrorCode#SUB_CHAIN}. */
    @Override
    public ChainErrorCode code() {
        return ChainErrorCode.SUB_CHAIN;
    }
}
