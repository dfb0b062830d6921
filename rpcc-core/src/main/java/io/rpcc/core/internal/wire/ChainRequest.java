package io.rpcc.core.internal.wire;

import io.rpcc.core.ChainState;

/**
 * A REQUEST frame: run one hop.
 *
 * @param header routing and debugging data
 * @param params the service function's parameters
 * @param state the chaining function's state
 * @param decodeError set by the decoder when the header was read but the user values were not
 */
public record ChainRequest(ChainHeader header, Object params, ChainState state, HopFailure decodeError) {
}
