package io.rpcc.core.internal.wire;

import io.rpcc.core.ConsoleLine;
import io.rpcc.core.HopTiming;
import io.rpcc.core.Metadata;
import io.rpcc.core.spi.EngineSpi;
import java.util.List;

/**
 * What a chain carries to a hop (part of a {@link ChainHeader}): the hop's number and what the
 * chain collected on its way there.
 *
 * @param hop the hop's index, starting at 1
 * @param path the servers visited before this hop
 * @param console the virtual console so far
 * @param timings the hop timings so far
 * @param metadata the chain's metadata
 */
@EngineSpi
public record ChainSoFar(int hop, List<String> path, List<ConsoleLine> console, List<HopTiming> timings,
                         Metadata metadata) {
}
