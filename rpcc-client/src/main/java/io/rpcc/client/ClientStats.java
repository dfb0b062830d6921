package io.rpcc.client;

import io.rpcc.core.Refusal;
import java.util.Map;

/**
 * Counters of a client.
 *
 * @param connectionsOpen open connections
 * @param chainsInFlight chains started and not yet ended
 * @param lateFrames frames that arrived for chains that had already ended (timed out)
 * @param refusals what the client refused (frames, connections), by kind; kinds never seen are absent
 */
public record ClientStats(int connectionsOpen, int chainsInFlight, long lateFrames, Map<Refusal, Long> refusals) {

    /** How many refusals of kind {@code refusal}. */
    public long refused(Refusal refusal) {
        return refusals.getOrDefault(refusal, 0L);
    }
}
