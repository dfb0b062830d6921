package io.rpcc.core;

/**
 * Why a node refused something a peer sent it or asked of it: a frame, a connection, or a
 * chaining function. Each refusal is counted per node ({@code RpccServer.stats().refusals()},
 * {@code RpccClient.stats().refusals()}), so that monitoring sees attacks and misconfigured peers
 * that the node survived.
 */
public enum Refusal {
    /** A frame that could not be decoded, or was over the size limit; its bytes were skipped. */
    MALFORMED_FRAME,
    /**
     * A peer with no protocol version in common with this node (its HELLO's version range, or an rpcc
     * 1 or 2 HELLO), or a frame of another version than the one agreed: the connection was closed and
     * nothing after it was read.
     */
    PROTOCOL_VERSION,
    /** A frame other than HELLO before the connection's handshake: refused unread, the connection closed. */
    FRAME_BEFORE_HELLO,
    /** A second HELLO on a connection: the connection was closed. */
    SECOND_HELLO,
    /**
     * A HELLO that was too large, could not be decoded, or named an invalid node, host, port or frame
     * size ({@code NodeBuilder.maxNodeNameLength}): the connection was closed.
     */
    INVALID_HELLO,
    /** A value that named a class instead of a registered type id: refused without loading the class. */
    CLASS_NAME,
    /** A value nested deeper than {@code NodeBuilder.maxValueDepth}: refused before it could exhaust the stack. */
    VALUE_TOO_DEEP,
    /** A REQUEST whose originator's name, host or port is invalid: dropped, since no one could be told. */
    INVALID_ORIGIN,
    /** An inbound connection over {@code NodeBuilder.maxInboundConnections}: closed at once. */
    TOO_MANY_CONNECTIONS,
    /** An inbound connection over {@code NodeBuilder.maxInboundConnectionsPerAddress}: closed at once. */
    TOO_MANY_CONNECTIONS_FROM_ADDRESS,
    /** An inbound connection that sent no HELLO within {@code NodeBuilder.handshakeTimeout}: closed. */
    HANDSHAKE_TIMEOUT,
    /** A connection with no frame either way for {@code NodeBuilder.idleTimeout}: closed. */
    IDLE_TIMEOUT,
    /** A frame that did not arrive completely within {@code NodeBuilder.frameTimeout} of its first bytes: closed. */
    SLOW_FRAME,
    /**
     * A connection whose partly received frame took the node's bytes in partial frames over
     * {@code NodeBuilder.maxPartialFrameBytes}: closed.
     */
    PARTIAL_FRAMES_OVER_LIMIT,
    /**
     * A connection whose peer did not read while more than {@code NodeBuilder.maxQueuedWriteBytes}
     * waited to be written to it (every frame counted, PING and WINDOW_UPDATE answers included, by the
     * bytes it holds: its bytes and a fixed overhead), or the connection holding the most while the
     * node's connections together held more than three quarters of
     * {@code NodeBuilder.maxTotalQueuedWriteBytes}, or one whose frame would have taken them over it:
     * closed. (Above {@code NodeBuilder.pauseReadingAboveQueuedBytes}, the node already stopped reading
     * that peer's requests, which are not refused or counted.)
     */
    WRITE_QUEUE_FULL,
    /**
     * A RESULT, ERROR, REPLY or QUIET frame whose chain secret did not match a live chain's, or for
     * a chain id this node never issued: dropped. Also a CANCEL whose secret does not match its
     * chain's, or one of a chain never seen here from a peer that already has the most such
     * cancels remembered ({@code 1,024}; it is still remembered, in place of that peer's oldest).
     */
    FORGED_FRAME,
    /**
     * A TLS peer whose certificate does not carry the node name it claimed: an inbound peer whose
     * HELLO names a node its certificate does not carry, or a node dialled at the address of a name
     * whose certificate (or HELLO) is for another name. The connection was closed.
     */
    IMPERSONATION,
    /**
     * A TLS handshake on a connection of this node that failed: this node refused the peer's
     * certificate (not signed by a trusted CA, expired or not yet valid, not sent), the peer refused
     * this node's, or the peer did not speak TLS. The connection was closed.
     */
    TLS_HANDSHAKE,
    /**
     * A chaining function that broke a sandbox rule (refused by the verifier, or stopped at a limit);
     * its chain failed with a {@link SandboxViolationException}.
     */
    SANDBOX_VIOLATION,
    /**
     * A chaining function that needed compiling while the node already had its maximum of
     * compilations waiting ({@code NodeBuilder.maxQueuedCompiles}).
     */
    COMPILE_QUEUE_FULL,
    /** A chaining function whose source was over the node's limit ({@code NodeBuilder.maxFunctionSourceChars}). */
    FUNCTION_SOURCE_TOO_LARGE,
    /**
     * A connection whose peer read none of what waited to be written to it for
     * {@code NodeBuilder.writeStallTimeout}: closed (what waited is dropped, the chains it belonged to
     * fail). This also ends two nodes that each stopped reading the other's requests
     * ({@code NodeBuilder.pauseReadingAboveQueuedBytes}) and so neither read.
     */
    WRITE_STALLED,
    /**
     * A connection on which nothing at all arrived within the ping timeout of a PING, sent after the
     * ping interval without a byte ({@code NodeBuilder.connectionHealth}): the peer is dead, cut off or
     * stalled. Closed; the next chain to that peer connects again (or fails over to a backup endpoint).
     */
    SILENT_PEER,
    /**
     * A connection that sent frames the node refused without closing it faster than it was allowed:
     * more than {@code NodeBuilder.maxBadFramesPerConnection} at once, an allowance that grows back by
     * {@code NodeBuilder.badFrameRefillPerMinute} a minute (each frame also counted by its own kind:
     * {@link #MALFORMED_FRAME}, {@link #CLASS_NAME}, {@link #VALUE_TOO_DEEP}, {@link #INVALID_ORIGIN},
     * {@link #FORGED_FRAME}, {@link #UNVOUCHED_ADDRESS}; and PINGs dropped because more than two waited for their answers, which
     * are counted only here): closed, and nothing more it sent was decoded. A peer that keeps sending
     * junk pays with its connection, and junk does not keep a connection from its idle timeout either.
     */
    TOO_MANY_BAD_FRAMES,
    /**
     * A connection this node would have opened, to send a hop, a result, a reply or a failure, while
     * it already had {@code NodeBuilder.maxOutboundConnections} outbound connections open (none idle
     * to close in its place) or {@code NodeBuilder.maxDialsInProgress} connection attempts under way:
     * not opened, and what was to be sent on it failed as if the peer were unreachable.
     */
    TOO_MANY_OUTBOUND_CONNECTIONS,
    /**
     * A REQUEST that named, as its originator, reply-to node or a return point, an address this node
     * would have to connect to but that nothing vouches for ({@link OutboundPolicy#VOUCHED}): refused
     * before its hop ran, with a {@link HopRejectedException} sent back on the connection it arrived on,
     * and held against that connection's allowance of refused frames ({@link #TOO_MANY_BAD_FRAMES}).
     */
    UNVOUCHED_ADDRESS,
    /**
     * A REQUEST, at a node running with TLS, that could not prove its originator: its credential was
     * missing (and its sender was not the originator itself), forged, signed for another chain or
     * first hop, or its hop limit widened on the way (a deadline that grew on the way is cut back to the
     * signed one, not refused). Refused with a
     * {@link PermissionDeniedException} to the chain's reply-to node.
     */
    FORGED_ORIGINATOR,
    /**
     * A hop the server's chain policy refused for its originator, previous hop or sub-chain creator
     * ({@code RpccServer.Builder.policy}); refused with a {@link PermissionDeniedException}.
     */
    POLICY_DENIED,
    /**
     * A frame of a hop's data stream that broke the stream rules: data or an end for a stream no
     * REQUEST announced on the connection (or that had ended), or more data than the receiver granted
     * room for. The frame is dropped (a stream that overran its room ends, and its service function's
     * read fails with a {@link ChainStreamException}); held against the connection's allowance of
     * refused frames ({@link #TOO_MANY_BAD_FRAMES}).
     */
    STREAM_VIOLATION,
    /**
     * A REQUEST announcing a data stream on a connection that already had
     * {@code NodeBuilder.maxStreamsPerConnection} streams open: the stream is refused (its sender is
     * told to stop), and the hop's service function reads a {@link ChainStreamException}.
     */
    TOO_MANY_STREAMS,
    /**
     * A REQUEST announcing a data stream while the streams arriving at the node already held its whole
     * budget ({@code NodeBuilder.streamBufferBytes}, over all connections), or those from the
     * request's remote address their whole share of it ({@code NodeBuilder.streamBufferShare}), but for
     * less than the room a stream starts with: the stream is refused (its sender is told to stop, what
     * it sends anyway is dropped), and the hop's service function reads a {@link ChainStreamException}.
     */
    STREAM_MEMORY,
    /**
     * A hop's data stream on which neither its sender nor its reader moved for
     * {@code NodeBuilder.streamIdleTimeout}: ended, its sender told to stop, its service function's
     * read failed with a {@link ChainStreamException}.
     */
    STREAM_IDLE
}
