package io.rpcc.core.internal.wire;

import io.rpcc.core.ChainingFunctionSource;
import io.rpcc.core.ConsoleLine;
import io.rpcc.core.HopTiming;
import io.rpcc.core.internal.chain.Credit;
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
 * @param budgetNanos what is left of the chain's deadline when the request leaves its sender, in
 *     nanoseconds (zero or less: expired), or {@link #NO_DEADLINE}; a budget, not a time, so that the
 *     nodes' clocks need not agree
 */
public record ChainHeader(long chainId, ChainSecret secret, String origin, String originHost, int originPort, int hop, int maxHops,
                          List<String> path, List<ConsoleLine> console, List<HopTiming> timings,
                          String serviceFunction, ChainingFunctionSource chainingFunction, Credit credit,
                          long budgetNanos) {
    /** The budget of a chain without a deadline. */
    public static final long NO_DEADLINE = Long.MAX_VALUE;

    /** This header for the next hop: the same chain, with the given fields changed. */
    public ChainHeader next(int hop, List<String> path, List<ConsoleLine> console, List<HopTiming> timings,
                            String serviceFunction, ChainingFunctionSource chainingFunction, Credit credit,
                            long budgetNanos) {
        return new ChainHeader(chainId, secret, origin, originHost, originPort, hop, maxHops, path, console, timings,
                serviceFunction, chainingFunction, credit, budgetNanos);
    }
}
