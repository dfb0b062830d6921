package io.rpcc.core.internal.transport;

/**
 * Counters of a node's transport.
 *
 * @param connectionsOpen connections currently open, inbound and outbound
 * @param malformedFrames frames that could not be decoded or were over the size limit
 * @param framesReceived frames decoded
 */
public record TransportStats(int connectionsOpen, long malformedFrames, long framesReceived) {
}
