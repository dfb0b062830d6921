package io.rpcc.server.internal;

import io.rpcc.core.ServiceFunction;
import io.rpcc.server.ChainPolicy;
import io.rpcc.server.HopDecorator;
import io.rpcc.server.ServerInterceptor;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;

/**
 * What a server's builder says about the hops it runs ({@link HopExecutor}): built once by
 * {@code RpccServer.Builder.build}.
 *
 * @param services the service functions it hosts, by name
 * @param idempotent the names of those whose outcomes are not kept for chains sent again
 * @param around the interceptors and decorators it runs around every hop
 * @param proxy where its chaining functions run, and whether it runs other servers'
 * @param composesSubChains whether the sub-chains its service functions start are composed with
 *     their parents (unless a sub-chain says otherwise)
 * @param staleBranchTimeout how long a split merging here waits for its branches
 * @param outcomeCache the bounds of the outcomes kept for chains sent again (see {@link HopOutcomes})
 */
public record HopSettings(Map<String, ServiceFunction> services, Set<String> idempotent,
                          Around around, ChainingProxy proxy, boolean composesSubChains,
                          Duration staleBranchTimeout, OutcomeCache outcomeCache) {
    /** Copies the collections. */
    public HopSettings {
        services = Map.copyOf(services);
        idempotent = Set.copyOf(idempotent);
    }

    /**
     * What a server runs around every hop, the first of each list outermost.
     *
     * @param interceptors around the stages of a hop (service function, chaining function, forward)
     * @param decorators around the whole hop, told how it ended
     * @param policy who may call which service function, and how isolated it runs (asked before a
     *     service hop starts)
     */
    public record Around(List<ServerInterceptor> interceptors, List<HopDecorator> decorators, ChainPolicy policy) {
        /** Copies the lists. */
        public Around {
            interceptors = List.copyOf(interceptors);
            decorators = List.copyOf(decorators);
            Objects.requireNonNull(policy, "policy");
        }

        /** With the default policy ({@link ChainPolicy#ALLOW_ALL}). */
        public Around(List<ServerInterceptor> interceptors, List<HopDecorator> decorators) {
            this(interceptors, decorators, ChainPolicy.ALLOW_ALL);
        }
    }

    /**
     * Where a server's chaining functions run (paper 7.3).
     *
     * @param node the chaining proxy it hands them to, or {@code null}: they run here
     * @param actsAsOne whether it runs chaining functions for servers that name it as their proxy
     */
    public record ChainingProxy(String node, boolean actsAsOne) {
        /** Whether the chaining functions of the hops that run here run here too (not at a proxy). */
        boolean runsHere() {
            return node == null || actsAsOne;
        }
    }

    /**
     * The bounds of the outcomes a server keeps for chains sent again; a zero turns the cache off.
     *
     * @param maxEntries the most outcomes kept
     * @param maxBytes the most bytes of their values kept (estimated)
     * @param ttl how long an outcome is kept after its hop ended
     */
    public record OutcomeCache(int maxEntries, long maxBytes, Duration ttl) {
        HopOutcomes.Limits limits() {
            return new HopOutcomes.Limits(maxEntries, maxBytes, ttl);
        }
    }
}
