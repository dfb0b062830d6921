package io.rpcc.core.internal.wire;

import io.rpcc.core.ChainException;
import io.rpcc.core.ChainFailure;

/**
 * A chain failure with its kind, as an ERROR frame carries them, outside a frame: a sub-chain's
 * failure on its way to the sub-chain's creator ({@link WireFormat#encodeFailure}).
 *
 * @param code its kind
 * @param failure what failed, where
 */
public record CodedFailure(ErrorCode code, ChainFailure failure) {
    /** The typed exception the originator would see. */
    public ChainException toException() {
        return code.toException(failure);
    }
}
