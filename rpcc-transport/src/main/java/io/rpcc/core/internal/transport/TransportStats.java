package io.rpcc.core.internal.transport;

import io.rpcc.core.Refusal;
import io.rpcc.core.spi.EngineSpi;
import java.util.Map;

/**
 * Counters of a node's transport.
 *
 * @param connectionsOpen connections currently open, inbound and outbound
 * @param malformedFrames frames that could not be decoded or were over the size limit
 * @param framesReceived frames decoded, PINGs aside
 * @param refusals what the node refused, by kind (kinds never seen are absent)
 * @param pingsSent PINGs sent on connections that were quiet (see {@link ConnectionHealth})
 * @param queuedWriteBytes bytes the node's connections hold to be written now, as held (a frame's
 *     bytes and {@link WriteBudget#FRAME_OVERHEAD}); at most {@link WireLimits#maxTotalQueuedWriteBytes}
 * @param peakQueuedWriteBytes the most the node's connections held to be written at once
 * @param peakConnectionQueuedWriteBytes the most one connection held to be written at once; at most
 *     {@link WireLimits#maxQueuedWriteBytes}
 */
@EngineSpi
public record TransportStats(int connectionsOpen, long malformedFrames, long framesReceived,
                             Map<Refusal, Long> refusals, long pingsSent, long queuedWriteBytes,
                             long peakQueuedWriteBytes, long peakConnectionQueuedWriteBytes) {
}
