package io.rpcc.core;

/**
 * A partial reply could not be sent because the chain's originator stopped reading: its reply
 * buffer stayed full for longer than the server's reply write timeout. Thrown by
 * {@link ChainContext#preturn} at the server; nothing is dropped silently.
 */
public class FlowControlException extends ChainException {
    private static final long serialVersionUID = 1L;

    /** An exception for {@code failure}. */
    public FlowControlException(ChainFailure failure) {
        super(failure);
    }

    /** {@link ChainErrorCode#FLOW_CONTROL}. */
    @Override
    public ChainErrorCode code() {
        return ChainErrorCode.FLOW_CONTROL;
    }
}
