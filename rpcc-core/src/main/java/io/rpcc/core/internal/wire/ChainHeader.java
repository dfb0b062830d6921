package io.rpcc.core.internal.wire;

import io.rpcc.core.ChainingFunctionSource;
import io.rpcc.core.ConsoleLine;
import io.rpcc.core.HopTiming;
import io.rpcc.core.internal.wire.Credit;
import java.util.List;

/**
 * The routing and debugging part of a hop request; holds only rpcc's own types.
 *
 * @param chainId the chain's number at its originator
 * @param secret the chain's secret, echoed in every frame to the originator
 * @param origin the originator's node name
 * @param originHost the originator's advertised host
 * @param originPort the originator's advertised port
 * @param hop this hop's index, starting at 1
 * @param maxHops the hop limit
 * @param path the servers visited before this hop
 * @param console the virtual console so far
 * @param timings the hop timings so far
 * @param serviceFunction the service function to run
 * @param chainingFunction the chaining function to run after it, or {@link ChainingFunctionSource#NONE}
 * @param credit the share of the chain's termination credit that this hop receives
 */
public record ChainHeader(long chainId, ChainSecret secret, String origin, String originHost, int originPort, int hop, int maxHops,
                          List<String> path, List<ConsoleLine> console, List<HopTiming> timings,
                          String serviceFunction, ChainingFunctionSource chainingFunction, Credit credit) {
}
