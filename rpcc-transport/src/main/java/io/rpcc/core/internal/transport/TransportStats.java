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
 * @param queued the bytes the node holds to be written ({@link WriteBudget})
 */
@EngineSpi
public record TransportStats(int connectionsOpen, long malformedFrames, long framesReceived,
                             Map<Refusal, Long> refusals, long pingsSent, QueuedWrites queued) {

    /**
     * The bytes a node holds to be written, as held (a frame's bytes and {@link WriteBudget#FRAME_OVERHEAD}).
     *
     * @param now held now over all connections; at most {@link WireLimits#maxTotalQueuedWriteBytes}
     * @param peak the most held at once over all connections
     * @param peakConnection the most one connection held at once; at most {@link WireLimits#maxQueuedWriteBytes}
     */
    public record QueuedWrites(long now, long peak, long peakConnection) {
    }

    /** The most the node's connections held to be written at once. */
    public long peakQueuedWriteBytes() {
        return queued.peak();
    }

    /** The most one connection held to be written at once. */
    public long peakConnectionQueuedWriteBytes() {
        return queued.peakConnection();
    }
}
