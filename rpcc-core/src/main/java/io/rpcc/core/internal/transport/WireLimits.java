package io.rpcc.core.internal.transport;

import java.time.Duration;

/**
 * What a node lets its peers hold of it: connections, time, bytes and nesting. See the
 * corresponding {@code NodeBuilder} settings for each.
 *
 * @param maxInboundConnections inbound connections open at once
 * @param maxInboundConnectionsPerAddress inbound connections open at once from one remote IP address
 * @param handshakeTimeout how long an inbound connection may take to send its HELLO
 * @param idleTimeout how long a connection may carry no frame either way ({@link Duration#ZERO}: forever)
 * @param frameTimeout how long a frame may take to arrive once its first bytes did
 * @param maxPartialFrameBytes bytes of partly received frames the node holds, over all connections
 * @param maxQueuedWriteBytes bytes waiting to be written to one connection before it is closed
 * @param maxNodeNameLength characters in a node name (HELLO, a chain's originator)
 * @param maxValueDepth nesting levels of a value (parameters, state, results, replies)
 * @param pauseReadingAboveQueuedBytes bytes waiting to be written to a peer above which the requests
 *     it sends are not read (see {@link ReadPauses})
 * @param writeStallTimeout how long a connection's write queue may make no progress before it is closed
 */
public record WireLimits(int maxInboundConnections, int maxInboundConnectionsPerAddress, Duration handshakeTimeout,
                         Duration idleTimeout, Duration frameTimeout, long maxPartialFrameBytes,
                         long maxQueuedWriteBytes, int maxNodeNameLength, int maxValueDepth,
                         long pauseReadingAboveQueuedBytes, Duration writeStallTimeout) {

    /** Longest host name (RFC 1035) or IP literal a HELLO or a chain's origin may give. */
    public static final int MAX_HOST_LENGTH = 253;

    /** Bytes a HELLO of a later protocol version may add after the fields of version 3. */
    public static final int HELLO_EXTENSION_BYTES = 256;

    /** The largest HELLO frame (after its length field) that fits the field limits. */
    public int maxHelloFrameBytes() {
        // version, type; version range (two varints); two strings (at most 3 bytes a char, plus a
        // 5-byte length); two varints; room for a later version's fields
        return 2 + 5 + 5 + (5 + 3 * maxNodeNameLength) + (5 + 3 * MAX_HOST_LENGTH) + 5 + 5 + HELLO_EXTENSION_BYTES;
    }
}
