/**
 * The rpcc wire protocol: one record per frame type (HELLO, REQUEST, RESULT, ERROR, REPLY, QUIET,
 * CANCEL, HEARTBEAT, PING, WINDOW_UPDATE), the parts of a hop request's header (return points, node
 * addresses, heartbeat budgets, the chain's secret), the termination credit
 * ({@link io.rpcc.core.internal.wire.Credit}), a failure inside rpcc (a
 * {@link io.rpcc.core.internal.wire.HopFailure} until it is located, then a
 * {@link io.rpcc.core.internal.wire.LocatedFailure}, both of a public {@link io.rpcc.core.ChainErrorCode})
 * and the one mapping of a code to its public exception ({@link io.rpcc.core.internal.wire.ChainErrors}),
 * and the encoding of frames ({@code WireFormat}), with user values in Kryo, by registered ids only
 * and with lengths bounded by the frame. {@link io.rpcc.core.internal.wire.FrameType} sums up the layout;
 * {@code docs/reference/protocol.md} is the full specification.
 *
 * <p>Implementation, not API: anything in this package may change or disappear at any time, in any
 * release, and applications must not use it. rpcc-client, rpcc-server, rpcc-repository and rpcc-js
 * use it too.
 */
package io.rpcc.core.internal.wire;
