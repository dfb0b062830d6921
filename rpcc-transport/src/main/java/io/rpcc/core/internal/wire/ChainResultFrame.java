package io.rpcc.core.internal.wire;

import io.rpcc.core.ConsoleLine;
import io.rpcc.core.HopTiming;
import io.rpcc.core.spi.EngineSpi;
import java.util.List;

/**
 * A RESULT frame: a chain's result, sent by its last hop straight to the originator.
 *
 * @param chain the chain and its secret
 * @param path the servers the chain visited
 * @param console the chain's virtual console
 * @param timings the chain's hop timings
 * @param value the result
 * @param credit the credit the last hop returns with the result
 * @param decodeError set by the decoder when the value could not be read
 */
@EngineSpi
public record ChainResultFrame(ChainKey chain, List<String> path, List<ConsoleLine> console, List<HopTiming> timings,
                               Object value, Credit credit, HopFailure decodeError) implements FrameToChain {
}
