package io.rpcc.server;

/**
 * Counters of a server.
 *
 * @param connectionsOpen open connections
 * @param malformedFrames frames dropped because they could not be decoded or were too large
 * @param framesReceived frames received
 * @param functionCacheHits chaining functions found compiled in the cache
 * @param functionCacheMisses chaining functions compiled
 * @param functionCompileNanos total time spent fetching and compiling chaining functions
 * @param functionFetches chaining functions fetched from a repository
 */
public record ServerStats(int connectionsOpen, long malformedFrames, long framesReceived,
                          long functionCacheHits, long functionCacheMisses, long functionCompileNanos,
                          long functionFetches) {
}
