package io.rpcc.core.internal.transport;

/**
 * The round-trip time of one connection, estimated as TCP estimates it (RFC 6298): a smoothed
 * round-trip time {@code SRTT} and its mean deviation {@code RTTVAR}, updated by each sample with
 * gains 1/8 and 1/4. Samples come from the rpcc handshake (the time from sending this node's HELLO
 * to reading the peer's) and from PINGs (the time from sending one to reading its answer). The
 * handshake's sample is provisional: the connection's set-up work on both sides (and, on a cold
 * JVM, class loading) inflates it, so the first PING's sample replaces it rather than averaging
 * with it.
 *
 * <p>What a chain's deadline budget is charged for one crossing of the connection is
 * {@link #oneWayNanos()}: half the smoothed round trip plus its mean deviation, so that a crossing
 * somewhat slower than the average (by up to twice the deviation of its half of the round trip) is
 * still covered. Thread-safe.
 */
public final class RoundTripTime {
    /** A sample over this is not believed (a peer that answers a PING this late is stalled, not far). */
    static final long MAX_SAMPLE_NANOS = 60_000_000_000L;

    private long srttNanos = -1; // guarded by this; -1: no sample yet
    private long rttvarNanos;
    private boolean provisional;
    private long samples;
    private long lastSampleNanos;
    private long helloSentNanos; // 0: not sent (or answered)
    private long pingPayload; // the PING on its way (its payload, the time it was sent), 0: none

    /**
     * A round trip of {@code rttNanos} was measured at {@code nowNanos}; {@code provisional} for the
     * handshake's (replaced by the next sample instead of averaged with it). Samples that are not
     * positive or over a minute are ignored.
     */
    synchronized void sample(long rttNanos, long nowNanos, boolean provisional) {
        if (rttNanos <= 0 || rttNanos > MAX_SAMPLE_NANOS) {
            return;
        }
        if (srttNanos < 0 || this.provisional) {
            srttNanos = rttNanos;
            rttvarNanos = 0;
        } else {
            rttvarNanos += (Math.abs(srttNanos - rttNanos) - rttvarNanos) / 4;
            srttNanos += (rttNanos - srttNanos) / 8;
        }
        this.provisional = provisional;
        samples++;
        lastSampleNanos = nowNanos;
    }

    /** This node's HELLO went out at {@code nowNanos} (an outbound connection). */
    synchronized void helloSent(long nowNanos) {
        helloSentNanos = nowNanos;
    }

    /** The peer's HELLO, the answer to this node's, arrived at {@code nowNanos}: the provisional sample. */
    synchronized void helloAnswered(long nowNanos) {
        if (helloSentNanos != 0) {
            sample(nowNanos - helloSentNanos, nowNanos, true);
            helloSentNanos = 0;
        }
    }

    /** A PING with payload {@code nowNanos} went out at that time; an earlier one's answer no longer counts. */
    synchronized void pingSent(long nowNanos) {
        pingPayload = nowNanos;
    }

    /**
     * Whether a measuring PING may go out at {@code nowNanos}: none is on its way, or the one on its
     * way was sent over a minute ago (its answer is not coming).
     */
    synchronized boolean mayMeasure(long nowNanos) {
        return pingPayload == 0 || nowNanos - pingPayload > MAX_SAMPLE_NANOS;
    }

    /**
     * A PING answer with {@code payload} arrived at {@code nowNanos}: a sample if it answers the PING
     * on its way (an answer that does not, a late or a forged one, is ignored).
     */
    synchronized void answered(long payload, long nowNanos) {
        if (payload != 0 && payload == pingPayload) {
            pingPayload = 0;
            sample(nowNanos - payload, nowNanos, false);
        }
    }

    /** The estimated time of one crossing: {@code SRTT / 2 + RTTVAR}, or -1 before the first sample. */
    public synchronized long oneWayNanos() {
        return srttNanos < 0 ? -1 : srttNanos / 2 + rttvarNanos;
    }

    /** The smoothed round-trip time, or -1 before the first sample. */
    public synchronized long smoothedNanos() {
        return srttNanos;
    }

    /** The mean deviation of the round-trip time (0 before the second sample). */
    public synchronized long deviationNanos() {
        return rttvarNanos;
    }

    /** How many samples were taken. */
    public synchronized long samples() {
        return samples;
    }

    /** Whether the estimate is missing, provisional, or its last sample is older than {@code maxAgeNanos} at {@code nowNanos}. */
    synchronized boolean stale(long nowNanos, long maxAgeNanos) {
        return srttNanos < 0 || provisional || nowNanos - lastSampleNanos > maxAgeNanos;
    }

    @Override
    public synchronized String toString() {
        return srttNanos < 0 ? "no round-trip sample yet"
                : String.format("round trip %.2f ms ± %.2f ms (%d samples%s)", srttNanos / 1e6, rttvarNanos / 1e6,
                        samples, provisional ? ", provisional" : "");
    }
}
