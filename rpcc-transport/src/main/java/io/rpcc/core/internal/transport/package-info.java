/**
 * A node's network endpoint, on Netty: listening and one multiplexed connection per peer node and
 * address, each opened with a HELLO each way; splitting the byte stream into frames and decoding
 * them in the protocol's order ({@code FrameDecoder}); chain frames handed to an
 * {@link io.rpcc.core.internal.transport.InboundListener}.
 *
 * <p>{@link io.rpcc.core.internal.transport.NodeTransport} is the node's handle on it: it owns the
 * parts below, wired through their constructors, and their life cycle ({@code TransportLifecycle}),
 * each part with one job, in the order a connection meets them: {@code InboundAcceptor} takes the
 * connections peers open (within the inbound limits); {@code PeerConnections} reuses the connection
 * to a peer ({@code PeerTable}) or has the {@code Dialer} open one (reconnect backoff);
 * {@code ConnectionPipeline} sets each connection up; {@code Handshakes} exchange the HELLOs and
 * adopt TLS-authenticated inbound connections ({@code PeerAuthentication}: node identities in
 * certificates); {@code FrameWriter} encodes and writes frames with back-pressure on producers and
 * on peers that do not read; {@code FrameHandler}, rpcc's handler of each connection, hands what it
 * reads to {@code InboundFrames}; {@code RoundTrips} sends PINGs and keeps round-trip times;
 * {@code ConnectionRefusals} counts and logs (rate-limited) what is refused; what they share of a
 * connection is in {@code ConnectionAttributes}. Around that: the limits on what peers may hold of a
 * node ({@link io.rpcc.core.internal.transport.WireLimits}, inbound connections, host name checks),
 * connection health (idle connections, silent peers, stalled writes) and the counters of what the
 * transport refused.
 *
 * <p>Implementation, not API: anything in this package may change or disappear at any time, in any
 * release, and applications must not use it.
 */
package io.rpcc.core.internal.transport;
