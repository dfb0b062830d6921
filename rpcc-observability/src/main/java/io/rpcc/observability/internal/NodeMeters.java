package io.rpcc.observability.internal;

import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.FunctionTimer;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tags;
import io.rpcc.client.ClientStats;
import io.rpcc.client.RpccClient;
import io.rpcc.core.Refusal;
import io.rpcc.server.RpccServer;
import io.rpcc.server.ServerStats;
import java.util.concurrent.TimeUnit;
import java.util.function.ToDoubleFunction;
import java.util.function.ToLongFunction;

/**
 * Meters that read a node's own counters ({@link RpccServer#stats()}, {@link RpccClient#stats()})
 * when the registry is read: nothing is copied or counted twice, and a node that is not read costs
 * nothing. Each meter holds its node weakly, as Micrometer's function meters do.
 */
public final class NodeMeters {
    private NodeMeters() {
    }

    /** Registers the meters of {@code server}'s counters in {@code registry}, tagged with its name. */
    public static void bind(MeterRegistry registry, RpccServer server) {
        Tags tags = Tags.of("node", server.name());
        Meters<RpccServer, ServerStats> m = new Meters<>(registry, server, RpccServer::stats, tags);
        m.gauge("rpcc.connections.open", "connections open now", ServerStats::connectionsOpen);
        m.counter("rpcc.frames.received", "frames received (PINGs aside)", ServerStats::framesReceived);
        m.counter("rpcc.frames.malformed", "frames dropped: undecodable or too large", ServerStats::malformedFrames);
        for (Refusal r : Refusal.values()) {
            FunctionCounter.builder("rpcc.refusals", server, s -> s.stats().refused(r))
                    .description("what this node refused (frames, connections, functions, hops), by cause")
                    .tags(tags).tag("cause", r.name()).register(registry);
        }
        m.counter("rpcc.function.cache.hits", "chaining functions found compiled in the cache", ServerStats::functionCacheHits);
        m.counter("rpcc.function.cache.misses", "chaining functions compiled", ServerStats::functionCacheMisses);
        FunctionTimer.builder("rpcc.function.compile", server, s -> s.stats().functionCacheMisses(),
                        s -> s.stats().functionCompileNanos(), TimeUnit.NANOSECONDS)
                .description("fetching and compiling chaining functions (count: compilations)").tags(tags)
                .register(registry);
        m.counter("rpcc.function.fetches", "chaining functions fetched from a repository", ServerStats::functionFetches);
        m.gauge("rpcc.sandbox.threads.abandoned", "sandbox threads stuck at their wall-time limit and abandoned",
                ServerStats::abandonedSandboxThreads);
        m.counter("rpcc.branch.outcomes.dropped", "outcomes of split branches dropped at their merge host",
                ServerStats::droppedBranchOutcomes);
        m.counter("rpcc.outcome.cache.hits", "hops of chains sent again that replayed a kept outcome",
                ServerStats::outcomeCacheHits);
        m.counter("rpcc.outcome.cache.misses", "hops whose outcome is kept that found none and ran",
                ServerStats::outcomeCacheMisses);
        m.counter("rpcc.outcome.cache.evictions", "kept outcomes dropped", ServerStats::outcomeCacheEvictions);
        m.counter("rpcc.outcome.cache.attached", "hops that waited for the same hop still running",
                ServerStats::outcomeCacheAttached);
        m.gauge("rpcc.outcome.cache.entries", "outcomes kept now", ServerStats::outcomeCacheEntries);
        m.gauge("rpcc.outcome.cache.bytes", "estimated bytes of the outcomes kept now", ServerStats::outcomeCacheBytes);
        m.counter("rpcc.failovers", "hops sent on to a later endpoint of a name", ServerStats::failovers);
        m.counter("rpcc.ejections", "times an endpoint was ejected", ServerStats::ejections);
        m.counter("rpcc.pings.sent", "PINGs sent on quiet connections", ServerStats::pingsSent);
    }

    /** Registers the meters of {@code client}'s counters in {@code registry}, tagged with its name. */
    public static void bind(MeterRegistry registry, RpccClient client) {
        Tags tags = Tags.of("node", client.name());
        Meters<RpccClient, ClientStats> m = new Meters<>(registry, client, RpccClient::stats, tags);
        m.gauge("rpcc.connections.open", "connections open now", ClientStats::connectionsOpen);
        m.gauge("rpcc.chains.active", "chains started and not yet ended", ClientStats::chainsInFlight);
        m.counter("rpcc.frames.late", "frames that arrived for chains that had ended: dropped", ClientStats::lateFrames);
        for (Refusal r : Refusal.values()) {
            FunctionCounter.builder("rpcc.refusals", client, c -> c.stats().refused(r))
                    .description("what this node refused (frames, connections, functions, hops), by cause")
                    .tags(tags).tag("cause", r.name()).register(registry);
        }
        m.counter("rpcc.retries", "chains sent again by a retry policy", ClientStats::retries);
        m.counter("rpcc.retransmissions", "chains sent again in all", ClientStats::retransmissions);
        m.counter("rpcc.frames.earlier.attempt", "frames of an earlier attempt of a chain sent again: dropped",
                ClientStats::earlierAttemptFrames);
        m.counter("rpcc.failovers", "first hops sent to a later endpoint of a name", ClientStats::failovers);
        m.counter("rpcc.pings.sent", "PINGs sent on quiet connections", ClientStats::pingsSent);
        m.counter("rpcc.replies.duplicate", "partial replies of a chain sent again that had been delivered: dropped",
                ClientStats::repliesSentAgain);
    }

    /** Registers function meters of one node that read one of its stats' fields. */
    private record Meters<N, S>(MeterRegistry registry, N node, java.util.function.Function<N, S> stats, Tags tags) {
        void counter(String name, String description, ToLongFunction<S> field) {
            FunctionCounter.builder(name, node, n -> field.applyAsLong(stats.apply(n)))
                    .description(description).tags(tags).register(registry);
        }

        void gauge(String name, String description, ToDoubleFunction<S> field) {
            Gauge.builder(name, node, n -> field.applyAsDouble(stats.apply(n)))
                    .description(description).tags(tags).register(registry);
        }
    }
}
