/**
 * A node's network endpoint, on Netty: listening and one multiplexed connection per peer node and
 * address ({@code NodeTransport}), each opened with a HELLO each way; splitting the byte stream into
 * frames and decoding them in the protocol's order ({@code FrameDecoder}); chain frames handed to an
 * {@link io.rpcc.core.internal.transport.InboundListener}. Around that: the limits on what peers may
 * hold of a node ({@link io.rpcc.core.internal.transport.WireLimits}, inbound connections, host name
 * checks), connection health (PINGs, round-trip times, stalled writes), back-pressure on producers and
 * on peers that do not read, reconnect backoff, TLS with node identities in certificates, and the
 * counters and rate-limited warnings of what the transport refused.
 *
 * <p>Implementation, not API: anything in this package may change or disappear at any time, in any
 * release, and applications must not use it.
 */
package io.rpcc.core.internal.transport;
