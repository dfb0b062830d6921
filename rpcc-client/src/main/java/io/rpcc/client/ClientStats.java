package io.rpcc.client;

import io.rpcc.core.Disconnect;
import io.rpcc.core.Refusal;
import java.util.Map;

/**
 * Counters of a client.
 *
 * @param connectionsOpen open connections
 * @param chainsInFlight chains started and not yet ended
 * @param lateFrames frames that arrived for chains that had already ended (cancelled, timed out, past their
 *     deadline, broken), or that arrived while the chain was ending: dropped, never delivered
 * @param refusals what the client refused (frames, connections), by kind; kinds never seen are absent
 * @param retries chains sent again by a {@link RetryPolicy}
 * @param retransmissions chains sent again in all: by a retry policy or by {@code RpccClient.retransmit}
 * @param earlierAttemptFrames frames of an earlier attempt of a chain that arrived while a later attempt
 *     of it was in flight: dropped (and counted in {@code lateFrames} too)
 * @param failovers first hops sent to a later endpoint of a name after an earlier one could not take
 *     them (see {@code NodeBuilder.outlierEjection})
 * @param pingsSent PINGs this client sent on connections that had been quiet for its ping interval
 * @param repliesSentAgain partial replies that arrived again for a chain sent again (a replayed hop
 *     sends its replies again) after they had been delivered: dropped, each reply is delivered once
 * @param repliesReceived partial replies of this client's chains that arrived from servers and were
 *     delivered (each once; replies sent again are not counted twice)
 * @param replyBytesReceived the bytes of the frames of those replies
 * @param disconnects this client's connections that closed, by cause; causes never seen are absent
 */
public record ClientStats(int connectionsOpen, int chainsInFlight, long lateFrames, Map<Refusal, Long> refusals,
                          long retries, long retransmissions, long earlierAttemptFrames, long failovers,
                          long pingsSent, long repliesSentAgain, long repliesReceived, long replyBytesReceived,
                          Map<Disconnect, Long> disconnects) {

    /** How many refusals of kind {@code refusal}. */
    public long refused(Refusal refusal) {
        return refusals.getOrDefault(refusal, 0L);
    }

    /** How many connections closed for {@code cause}. */
    public long disconnected(Disconnect cause) {
        return disconnects.getOrDefault(cause, 0L);
    }
}
