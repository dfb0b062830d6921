package io.rpcc.observability.internal;

import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.FunctionTimer;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tags;
import io.rpcc.client.ClientStats;
import io.rpcc.client.RpccClient;
import io.rpcc.core.Disconnect;
import io.rpcc.core.Refusal;
import io.rpcc.server.RpccServer;
import io.rpcc.server.ServerStats;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.function.ToDoubleFunction;
import java.util.function.ToLongBiFunction;
import java.util.function.ToLongFunction;

/**
 * Meters that read a node's own counters ({@link RpccServer#stats()}, {@link RpccClient#stats()})
 * when the registry is read: nothing is copied or counted twice, and a node that is not read costs
 * nothing. Each meter holds its node weakly, as Micrometer's function meters do.
 */
public final class NodeMeters {
    /**
     * The sandbox rules counted by name ({@code rpcc.sandbox.violations}): those of the Java sandbox
     * (docs/reference/sandbox-allow-list.md), its limits and JavaScript's; the others as {@value #OTHER_RULE}.
     */
    public static final List<String> SANDBOX_RULES = List.of("reflection", "method-handles", "class-loading",
            "class-path-resources", "threads", "processes", "files", "network", "exit", "environment",
            "system-properties", "host-information", "global-state", "native-code", "unsafe", "rpcc-api",
            "rpcc-internals", "catch-error", "finalizer", "static-state", "output-type", "not-allowed", "cpu-time",
            "wall-time", "memory", "stack-depth", "sandbox-capacity", "host-access");
    /** The {@code rule} tag of violations of rules not in {@link #SANDBOX_RULES}. */
    public static final String OTHER_RULE = "other";

    private NodeMeters() {
    }

    /** Registers the meters of {@code server}'s counters in {@code registry}, tagged with its name. */
    public static void bind(MeterRegistry registry, RpccServer server) {
        Tags tags = Tags.of("node", server.name());
        Meters<RpccServer, ServerStats> m = new Meters<>(registry, server, RpccServer::stats, tags);
        m.connections(ServerStats::connectionsOpen, ServerStats::refused, ServerStats::disconnected);
        m.counter("rpcc.frames.received", "frames received (PINGs aside)", ServerStats::framesReceived);
        m.counter("rpcc.frames.malformed", "frames dropped: undecodable or too large", ServerStats::malformedFrames);
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
        FunctionTimer.builder("rpcc.replies.flow.waits", server, s -> s.stats().replyWaits(),
                        s -> s.stats().replyWaitNanos(), TimeUnit.NANOSECONDS)
                .description("partial replies that waited for room in their originator's window (flow control)")
                .tags(tags).register(registry);
        FunctionCounter.builder("rpcc.replies.relayed.lost", server, RpccServer::relayedRepliesLost)
                .description("partial replies of sub-chains started here that could not be passed on to the originator").tags(tags)
                .register(registry);
        for (String rule : SANDBOX_RULES) {
            FunctionCounter.builder("rpcc.sandbox.violations", server, s -> s.stats().violated(rule))
                    .description("chaining functions that broke a sandbox rule, by rule").tags(tags).tag("rule", rule)
                    .register(registry);
        }
        FunctionCounter.builder("rpcc.sandbox.violations", server, s -> otherRules(s.stats().sandboxViolations()))
                .description("chaining functions that broke a sandbox rule, by rule").tags(tags).tag("rule", OTHER_RULE)
                .register(registry);
    }

    private static long otherRules(Map<String, Long> violations) {
        long n = 0;
        for (Map.Entry<String, Long> e : violations.entrySet()) {
            if (!SANDBOX_RULES.contains(e.getKey())) {
                n += e.getValue();
            }
        }
        return n;
    }



    /** Registers the meters of {@code client}'s counters in {@code registry}, tagged with its name. */
    public static void bind(MeterRegistry registry, RpccClient client) {
        Tags tags = Tags.of("node", client.name());
        Meters<RpccClient, ClientStats> m = new Meters<>(registry, client, RpccClient::stats, tags);
        m.connections(ClientStats::connectionsOpen, ClientStats::refused, ClientStats::disconnected);
        m.gauge("rpcc.chains.active", "chains started and not yet ended", ClientStats::chainsInFlight);
        m.counter("rpcc.frames.late", "frames that arrived for chains that had ended: dropped", ClientStats::lateFrames);
        m.counter("rpcc.retries", "chains sent again by a retry policy", ClientStats::retries);
        m.counter("rpcc.retransmissions", "chains sent again in all", ClientStats::retransmissions);
        m.counter("rpcc.frames.earlier.attempt", "frames of an earlier attempt of a chain sent again: dropped",
                ClientStats::earlierAttemptFrames);
        m.counter("rpcc.failovers", "first hops sent to a later endpoint of a name", ClientStats::failovers);
        m.counter("rpcc.pings.sent", "PINGs sent on quiet connections", ClientStats::pingsSent);
        m.counter("rpcc.replies.duplicate", "partial replies of a chain sent again that had been delivered: dropped",
                ClientStats::repliesSentAgain);
        m.counter("rpcc.replies.received", "partial replies that arrived from servers, each counted once",
                ClientStats::repliesReceived);
        FunctionCounter.builder("rpcc.replies.bytes", client, c -> c.stats().replyBytesReceived())
                .description("the bytes of the frames of those replies").baseUnit("bytes").tags(tags).register(registry);
        FunctionCounter.builder("rpcc.chains.broken", client, RpccClient::brokenChains)
                .description("chains found broken (a node on their way died) by heartbeats").tags(tags)
                .register(registry);
        FunctionCounter.builder("rpcc.heartbeats.late", client, RpccClient::lateHeartbeats)
                .description("heartbeats that arrived for chains that had ended").tags(tags).register(registry);
    }

    /** Registers function meters of one node that read one of its stats' fields. */
    private record Meters<N, S>(MeterRegistry registry, N node, java.util.function.Function<N, S> stats, Tags tags) {
        void counter(String name, String description, ToLongFunction<S> field) {
            FunctionCounter.builder(name, node, n -> field.applyAsLong(stats.apply(n)))
                    .description(description).tags(tags).register(registry);
        }

        /** The node's connections: open now, refusals and disconnects by cause. */
        void connections(ToDoubleFunction<S> open, ToLongBiFunction<S, Refusal> refused,
                         ToLongBiFunction<S, Disconnect> disconnected) {
            gauge("rpcc.connections.open", "connections open now", open);
            perCause("rpcc.refusals", "what this node refused (frames, connections, functions, hops), by cause",
                    Refusal.values(), refused);
            perCause("rpcc.disconnects", "connections that closed, by cause", Disconnect.values(), disconnected);
        }

        /** A counter per cause, tagged {@code cause=<its name>}. */
        <K extends Enum<K>> void perCause(String name, String description, K[] causes, ToLongBiFunction<S, K> count) {
            for (K cause : causes) {
                FunctionCounter.builder(name, node, n -> count.applyAsLong(stats.apply(n), cause))
                        .description(description).tags(tags).tag("cause", cause.name()).register(registry);
            }
        }

        void gauge(String name, String description, ToDoubleFunction<S> field) {
            Gauge.builder(name, node, n -> field.applyAsDouble(stats.apply(n)))
                    .description(description).tags(tags).register(registry);
        }
    }
}
