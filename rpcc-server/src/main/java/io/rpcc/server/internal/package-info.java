/**
 * The server's side of chains. {@link io.rpcc.server.internal.HopExecutor} runs each hop that arrives
 * (the service function, the chaining function, then what its next hop says);
 * {@link io.rpcc.server.internal.HopReplies} sends the hop's partial replies within the room its
 * originator granted ({@link io.rpcc.server.internal.SendWindow}) and takes part in the chain's
 * termination; {@link io.rpcc.server.internal.HopReports} and
 * {@link io.rpcc.server.internal.HandOffs} carry results, failures and credit on. Also here: nested
 * sub-chains (parked chains in {@link io.rpcc.server.internal.Continuations}, failures routed to their
 * creators, replies relayed through their creators), splits and merges
 * ({@link io.rpcc.server.internal.MergePoints}), the outcome cache that replays hops of a chain sent
 * again ({@link io.rpcc.server.internal.HopOutcomes}), the trails that cancels follow
 * ({@link io.rpcc.server.internal.ChainTrails}), and the hops running now, which a shutdown waits for
 * ({@link io.rpcc.server.internal.RunningHops}).
 *
 * <p>Implementation, not API: anything in this package may change or disappear at any time, in any
 * release, and applications must not use it.
 */
package io.rpcc.server.internal;
