package io.rpcc.server.internal;

/**
 * What a server keeps about the chains passing through it, shared by the handlers of its hops:
 * where each chain went ({@link ChainTrails}), the hops parked for their sub-chains
 * ({@link Continuations}), the hops running here ({@link RunningHops}) and the frames they hand on
 * ({@link HandOffs}), the reports to originators ({@link HopReports}), and the relays of sub-chains'
 * replies ({@link ReplyRelays}).
 *
 * @param trails where each chain went from here, and its hops here
 * @param continuations the hops parked here while their sub-chains run
 * @param running the hops running here
 * @param handOffs the frames the hops here hand on, until they are written
 * @param reports the results and failures sent to originators
 * @param relays the sub-chains started here whose replies come through here
 */
record HopTables(ChainTrails trails, Continuations continuations, RunningHops running, HandOffs handOffs,
                 HopReports reports, ReplyRelays relays) {
}
