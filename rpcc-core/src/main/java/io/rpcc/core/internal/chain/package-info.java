/**
 * The chain engine that clients and servers share. {@link io.rpcc.core.internal.chain.Node} is a
 * participant in chains (a name, a listening address, connections to its peers); its
 * {@link io.rpcc.core.internal.chain.ChainOriginator} keeps the chains it started, collects their
 * outcomes and partial replies, and recovers their termination credit, and its
 * {@link io.rpcc.core.internal.chain.RequestHandler} runs the hops that arrive (rpcc-server's, or
 * {@link io.rpcc.core.internal.chain.RefusingRequestHandler} at a client). The node wires parts with
 * one job each and owns their life cycle: {@link io.rpcc.core.internal.chain.HopRouter} (where hops go,
 * with failover), {@link io.rpcc.core.internal.chain.InboundDispatch} (where decoded frames go),
 * {@link io.rpcc.core.internal.chain.HeartbeatSender}, {@link io.rpcc.core.internal.chain.CancelRelay},
 * {@link io.rpcc.core.internal.chain.ChainBudgets} and the node's
 * {@link io.rpcc.core.internal.chain.NodeTimer}.
 * {@link io.rpcc.core.internal.chain.NextHopDecision} is the one place that interprets what a chaining
 * function returned. Also here: what one hop invocation holds (its {@code ChainContext}, deadline and
 * cancellation, and the count of work that may still send partial replies), the originator's reply
 * flow control and delivery of each reply once, heartbeats and broken-chain detection, the order in
 * which a name's endpoints are tried, and the log of failures.
 *
 * <p>Implementation, not API: anything in this package may change or disappear at any time, in any
 * release, and applications must not use it. rpcc-client, rpcc-server and rpcc-repository use it too.
 */
package io.rpcc.core.internal.chain;
