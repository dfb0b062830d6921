package io.rpcc.core;

/**
 * Why a node refused something a peer sent it or asked of it: a frame, a connection, or a
 * chaining function. Each refusal is counted per node ({@code RpccServer.stats().refusals()},
 * {@code RpccClient.stats().refusals()}), so that monitoring sees attacks and misconfigured peers
 * that the node survived.
 */
public enum Refusal {
    /** A frame that could not be decoded, or was over the size limit; its bytes were skipped. */
    MALFORMED_FRAME
}
