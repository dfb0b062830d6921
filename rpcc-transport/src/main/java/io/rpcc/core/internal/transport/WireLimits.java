package io.rpcc.core.internal.transport;

import io.rpcc.core.spi.EngineSpi;
import java.time.Duration;

/**
 * What a node lets its peers hold of it: connections, time, bytes and nesting. See the
 * corresponding {@code NodeBuilder} settings for each.
 *
 * @param connections how many inbound connections, and how many bad frames one may send
 * @param timeouts how long a peer may keep the node waiting
 * @param buffers how many bytes a peer may leave with the node
 * @param values how large the names and values a peer sends may be
 * @param outbound how many connections the node opens to others, and dials at once
 * @param streams how much of the hops' data streams the node holds, and for how long ({@link HopStreams})
 */
@EngineSpi
public record WireLimits(InboundConnectionLimits connections, ConnectionTimeouts timeouts, BufferLimits buffers,
                         ValueLimits values, OutboundConnectionLimits outbound, StreamLimits streams) {

    /** Limits with the default {@link StreamLimits#DEFAULT stream limits}. */
    public WireLimits(InboundConnectionLimits connections, ConnectionTimeouts timeouts, BufferLimits buffers,
                      ValueLimits values, OutboundConnectionLimits outbound) {
        this(connections, timeouts, buffers, values, outbound, StreamLimits.DEFAULT);
    }

    /**
     * What a node holds of the data streams of the hops it receives, and the chunks it sends.
     *
     * @param windowBytes bytes of one stream held at once, buffered here or granted and on their way
     *     (at least {@link io.rpcc.core.internal.wire.StreamFrames#INITIAL_WINDOW}): a service function
     *     that reads slowly holds back its sender, not this node's memory
     * @param chunkBytes the most bytes in one STREAM_DATA frame this node sends
     * @param maxStreamsPerConnection streams open at once on one connection toward this node; one more is
     *     refused ({@link io.rpcc.core.Refusal#TOO_MANY_STREAMS})
     * @param idleTimeout how long a stream may see neither data arriving nor its reader reading before it is
     *     ended ({@link io.rpcc.core.Refusal#STREAM_IDLE})
     * @param bufferBytes bytes of all inbound streams together that the node holds at once, buffered or
     *     granted and on their way, over all connections (at least
     *     {@link io.rpcc.core.internal.wire.StreamFrames#INITIAL_WINDOW}): a stream that would take it over
     *     is refused ({@link io.rpcc.core.Refusal#STREAM_MEMORY}), and streams get more room only as it
     *     frees
     * @param addressShare the fraction of {@code bufferBytes} that the streams arriving from one remote
     *     IP address may hold together ({@link #bytesPerAddress}), over all its connections: more than 0,
     *     at most 1
     */
    public record StreamLimits(int windowBytes, int chunkBytes, int maxStreamsPerConnection, Duration idleTimeout,
                               long bufferBytes, double addressShare) {
        /**
         * The default node-wide budget of buffered stream bytes: 64 MiB, or a quarter of the heap if that
         * is less (stream data is held on the heap), and never under one stream's initial room.
         */
        public static final long DEFAULT_BUFFER_BYTES = Math.max(io.rpcc.core.internal.wire.StreamFrames.INITIAL_WINDOW,
                Math.min(64L << 20, Runtime.getRuntime().maxMemory() / 4));
        /** The default share of the budget one remote address may hold: half. */
        public static final double DEFAULT_ADDRESS_SHARE = 0.5;
        /**
         * 4 MiB a stream, 64 KiB chunks, 256 streams a connection, 30 s idle, {@link #DEFAULT_BUFFER_BYTES}
         * in all, half of it for one address.
         */
        public static final StreamLimits DEFAULT = new StreamLimits(4 << 20, 64 << 10, 256, Duration.ofSeconds(30),
                DEFAULT_BUFFER_BYTES, DEFAULT_ADDRESS_SHARE);

        public StreamLimits {
            if (windowBytes < io.rpcc.core.internal.wire.StreamFrames.INITIAL_WINDOW) {
                throw new IllegalArgumentException("streamWindowBytes must be at least "
                        + io.rpcc.core.internal.wire.StreamFrames.INITIAL_WINDOW + " (the room every stream starts with), got "
                        + windowBytes);
            }
            if (chunkBytes < 1 || maxStreamsPerConnection < 1) {
                throw new IllegalArgumentException("stream chunk size and streams per connection must be positive, got "
                        + chunkBytes + " and " + maxStreamsPerConnection);
            }
            if (idleTimeout.isNegative() || idleTimeout.isZero()) {
                throw new IllegalArgumentException("streamIdleTimeout must be positive, got " + idleTimeout);
            }
            if (bufferBytes < io.rpcc.core.internal.wire.StreamFrames.INITIAL_WINDOW) {
                throw new IllegalArgumentException("streamBufferBytes must be at least "
                        + io.rpcc.core.internal.wire.StreamFrames.INITIAL_WINDOW + " (the room every stream starts with), got "
                        + bufferBytes);
            }
            if (!(addressShare > 0 && addressShare <= 1)) {
                throw new IllegalArgumentException("streamBufferShare must be more than 0 and at most 1, got "
                        + addressShare);
            }
        }

        /**
         * Bytes the streams from one remote address may hold: {@code addressShare} of
         * {@code bufferBytes}, but never less than the room one stream starts with.
         */
        public long bytesPerAddress() {
            return Math.max(io.rpcc.core.internal.wire.StreamFrames.INITIAL_WINDOW, (long) (bufferBytes * addressShare));
        }
    }

    /**
     * How many connections a node opens to other nodes: what a flood of chains naming distinct
     * addresses (results to send, next hops) can make it hold. See {@link OutboundBounds}.
     *
     * @param maxOutboundConnections connections this node opened and holds open at once (and dials
     *     under way); past it, the least recently used idle one is closed to make room, or, if none
     *     is idle, the send fails ({@link io.rpcc.core.Refusal#TOO_MANY_OUTBOUND_CONNECTIONS})
     * @param maxDialsInProgress connection attempts (connect and handshake) under way at once
     */
    public record OutboundConnectionLimits(int maxOutboundConnections, int maxDialsInProgress) {
        public OutboundConnectionLimits {
            if (maxOutboundConnections < 1 || maxDialsInProgress < 1) {
                throw new IllegalArgumentException("outbound connection limits must be positive, got "
                        + maxOutboundConnections + " connections and " + maxDialsInProgress + " dials");
            }
        }
    }

    /**
     * How many inbound connections a node keeps open, and how much junk one connection may send.
     *
     * @param maxInboundConnections inbound connections open at once
     * @param maxInboundConnectionsPerAddress inbound connections open at once from one remote IP address
     * @param maxBadFramesPerConnection frames one connection (inbound or outbound) may have refused in a
     *     burst without being closed; one more, when none has been regained, closes it
     *     ({@link io.rpcc.core.Refusal#TOO_MANY_BAD_FRAMES}; see {@link BadFrames})
     * @param badFrameRefillPerMinute how many of those a connection regains a minute, up to
     *     {@code maxBadFramesPerConnection} (0: none, the allowance is for the connection's lifetime)
     */
    public record InboundConnectionLimits(int maxInboundConnections, int maxInboundConnectionsPerAddress,
                                          int maxBadFramesPerConnection, int badFrameRefillPerMinute) {
    }

    /**
     * How long a peer may keep a node waiting.
     *
     * @param handshakeTimeout how long an inbound connection may take to send its HELLO
     * @param idleTimeout how long a connection may carry no frame either way ({@link Duration#ZERO}: forever)
     * @param frameTimeout how long a frame may take to arrive once its first bytes did
     * @param writeStallTimeout how long a connection's write queue may make no progress before it is closed
     */
    public record ConnectionTimeouts(Duration handshakeTimeout, Duration idleTimeout, Duration frameTimeout,
                                     Duration writeStallTimeout) {
    }

    /**
     * How many bytes a peer may leave with a node.
     *
     * @param maxPartialFrameBytes bytes of partly received frames the node holds, over all connections
     * @param maxQueuedWriteBytes bytes waiting to be written to one connection before it is closed
     *     (as held: see {@link WriteBudget})
     * @param maxTotalQueuedWriteBytes bytes waiting to be written to all the node's connections together
     *     (see {@link WriteBudget})
     * @param pauseReadingAboveQueuedBytes bytes waiting to be written to a peer above which the requests
     *     it sends are not read (see {@link ReadPauses})
     */
    public record BufferLimits(long maxPartialFrameBytes, long maxQueuedWriteBytes, long maxTotalQueuedWriteBytes,
                               long pauseReadingAboveQueuedBytes) {
    }

    /**
     * How large the names and values a peer sends may be.
     *
     * @param maxNodeNameLength characters in a node name (HELLO, a chain's originator)
     * @param maxValueDepth nesting levels of a value (parameters, state, results, replies)
     */
    public record ValueLimits(int maxNodeNameLength, int maxValueDepth) {
    }

    /** Inbound connections open at once. */
    public int maxInboundConnections() {
        return connections.maxInboundConnections();
    }

    /** Inbound connections open at once from one remote IP address. */
    public int maxInboundConnectionsPerAddress() {
        return connections.maxInboundConnectionsPerAddress();
    }

    /** Frames one connection may have refused in a burst without being closed. */
    public int maxBadFramesPerConnection() {
        return connections.maxBadFramesPerConnection();
    }

    /** Refused frames a connection regains a minute, up to {@link #maxBadFramesPerConnection} (0: none). */
    public int badFrameRefillPerMinute() {
        return connections.badFrameRefillPerMinute();
    }

    /** How long an inbound connection may take to send its HELLO. */
    public Duration handshakeTimeout() {
        return timeouts.handshakeTimeout();
    }

    /** How long a connection may carry no frame either way ({@link Duration#ZERO}: forever). */
    public Duration idleTimeout() {
        return timeouts.idleTimeout();
    }

    /** How long a frame may take to arrive once its first bytes did. */
    public Duration frameTimeout() {
        return timeouts.frameTimeout();
    }

    /** How long a connection's write queue may make no progress before it is closed. */
    public Duration writeStallTimeout() {
        return timeouts.writeStallTimeout();
    }

    /** Bytes of partly received frames the node holds, over all connections. */
    public long maxPartialFrameBytes() {
        return buffers.maxPartialFrameBytes();
    }

    /** Bytes waiting to be written to one connection before it is closed. */
    public long maxQueuedWriteBytes() {
        return buffers.maxQueuedWriteBytes();
    }

    /** Bytes waiting to be written to all the node's connections together. */
    public long maxTotalQueuedWriteBytes() {
        return buffers.maxTotalQueuedWriteBytes();
    }

    /** Bytes waiting to be written to a peer above which the requests it sends are not read. */
    public long pauseReadingAboveQueuedBytes() {
        return buffers.pauseReadingAboveQueuedBytes();
    }

    /** Characters in a node name (HELLO, a chain's originator). */
    public int maxNodeNameLength() {
        return values.maxNodeNameLength();
    }

    /** Nesting levels of a value (parameters, state, results, replies). */
    public int maxValueDepth() {
        return values.maxValueDepth();
    }

    /** Connections this node opened and holds open at once. */
    public int maxOutboundConnections() {
        return outbound.maxOutboundConnections();
    }

    /** Connection attempts under way at once. */
    public int maxDialsInProgress() {
        return outbound.maxDialsInProgress();
    }

    /** Longest host name (RFC 1035) or IP literal a HELLO or a chain's origin may give. */
    public static final int MAX_HOST_LENGTH = 253;

    /** Bytes a HELLO of a later protocol version may add after the fields of version 3. */
    public static final int HELLO_EXTENSION_BYTES = 256;

    /** The largest HELLO frame (after its length field) that fits the field limits. */
    public int maxHelloFrameBytes() {
        // version, type; version range (two varints); two strings (at most 3 bytes a char, plus a
        // 5-byte length); two varints; room for a later version's fields
        return 2 + 5 + 5 + (5 + 3 * maxNodeNameLength()) + (5 + 3 * MAX_HOST_LENGTH) + 5 + 5 + HELLO_EXTENSION_BYTES;
    }
}
