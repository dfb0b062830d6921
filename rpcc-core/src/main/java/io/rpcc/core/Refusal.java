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
    FUNCTION_SOURCE_TOO_LARGE
}
