package io.rpcc.core.internal.wire;

import io.rpcc.core.ConsoleLine;
import io.rpcc.core.HopTiming;
import java.util.List;

/**
 * A RESULT frame: a chain's result, sent by its last hop straight to the originator.
 *
 * @param secret the chain's secret
 * @param credit the credit the last hop returns with the result
 * @param decodeError set by the decoder when the value could not be read
 */
public record ChainResultFrame(long chainId, ChainSecret secret, List<String> path, List<ConsoleLine> console, List<HopTiming> timings,
                               Object value, Credit credit, HopFailure decodeError) {
}
