package io.rpcc.core.internal.wire;

import io.rpcc.core.ChainFailure;

/** An ERROR frame: a chain failed; sent by the node that saw the failure to the originator. */
public record ChainErrorFrame(long chainId, ErrorCode code, ChainFailure failure) {
}
