package io.rpcc.server;

import io.rpcc.core.Disconnect;
import io.rpcc.core.Refusal;
import java.util.Map;

/**
 * Counters of a server.
 *
 * @param connectionsOpen open connections
 * @param malformedFrames frames dropped because they could not be decoded or were too large
 * @param framesReceived frames received (PINGs, which are about connections, aside)
 * @param functionCacheHits chaining functions found compiled in the cache
 * @param functionCacheMisses chaining functions compiled
 * @param functionCompileNanos total time spent fetching and compiling chaining functions
 * @param functionFetches chaining functions fetched from a repository
 * @param refusals what the server refused (frames, connections, functions), by kind; kinds never seen are absent
 * @param abandonedSandboxThreads threads of this server's chaining functions that were stuck in one JDK call
 *     at their wall-time limit, abandoned (their chains failed) and still running; at 16, this server
 *     refuses new sandboxed invocations until some end (other servers in the JVM are not affected)
 * @param droppedBranchOutcomes outcomes of branches of split chains merging at this server that it
 *     dropped: held by a split that was not complete within the stale-branch timeout
 *     ({@code RpccServer.Builder.staleBranchTimeout}, or the chain's deadline), arriving for such a
 *     split later, or matching no split (each is logged)
 * @param outcomeCacheHits hops of chains sent again that replayed the outcomes this server kept of
 *     their first run, instead of running their functions (see {@code RpccServer.Builder.outcomeCache})
 * @param outcomeCacheMisses hops whose outcomes the cache keeps that found none to replay, and ran
 * @param outcomeCacheEvictions kept outcomes dropped: expired, or beyond the entry or byte bound (a hop
 *     whose partial replies alone went over the byte bound too)
 * @param outcomeCacheAttached hops that arrived while the same hop of the same chain still ran here, and
 *     waited for it (without a thread) to replay its outcomes
 * @param outcomeCacheEntries outcomes kept now
 * @param outcomeCacheBytes the estimated bytes of the values of the outcomes kept now
 * @param failovers hops this server sent on to a later endpoint of a name after an earlier one
 *     could not take them (see {@code NodeBuilder.outlierEjection})
 * @param ejections times an endpoint was ejected: tried after the others for a while
 * @param pingsSent PINGs this server sent on connections that had been quiet for its ping interval
 *     ({@code NodeBuilder.connectionHealth}); a peer that answers none is closed, counted as
 *     {@link Refusal#SILENT_PEER}
 * @param replyWaits partial replies of hops here that found no room in their originators' windows
 *     and waited for it (flow control: the originator reads slower than the chain produces)
 * @param replyWaitNanos the time those replies waited, in all
 * @param sandboxViolations chaining functions that broke a sandbox rule here (refused by the
 *     verifier, or stopped at a limit), by the rule's name (e.g. {@code "threads"},
 *     {@code "cpu-time"}: {@code docs/reference/sandbox-allow-list.md}); rules never broken are
 *     absent. Together they are {@code refused(Refusal.SANDBOX_VIOLATION)}.
 * @param disconnects this server's connections that closed, inbound and outbound, by cause; causes
 *     never seen are absent
 */
public record ServerStats(int connectionsOpen, long malformedFrames, long framesReceived,
                          long functionCacheHits, long functionCacheMisses, long functionCompileNanos,
                          long functionFetches, Map<Refusal, Long> refusals, int abandonedSandboxThreads,
                          long droppedBranchOutcomes, long outcomeCacheHits, long outcomeCacheMisses,
                          long outcomeCacheEvictions, long outcomeCacheAttached, int outcomeCacheEntries,
                          long outcomeCacheBytes, long failovers, long ejections,
                          long pingsSent, long replyWaits, long replyWaitNanos,
                          Map<String, Long> sandboxViolations, Map<Disconnect, Long> disconnects) {

    /** How many refusals of kind {@code refusal}. */
    public long refused(Refusal refusal) {
        return refusals.getOrDefault(refusal, 0L);
    }

    /** How many connections closed for {@code cause}. */
    public long disconnected(Disconnect cause) {
        return disconnects.getOrDefault(cause, 0L);
    }

    /** How many chaining functions broke sandbox rule {@code rule} here. */
    public long violated(String rule) {
        return sandboxViolations.getOrDefault(rule, 0L);
    }
}
