package io.rpcc.core.internal.wire;

import io.rpcc.core.ChainErrorCode;
import io.rpcc.core.ChainFailure;
import io.rpcc.core.spi.EngineSpi;

/**
 * An ERROR frame: a chain failed; sent by the node that saw the failure to the originator, with the
 * credit that node held.
 */
@EngineSpi
public record ChainErrorFrame(long chainId, ChainSecret secret, ChainErrorCode code, ChainFailure failure, Credit credit) {
}
