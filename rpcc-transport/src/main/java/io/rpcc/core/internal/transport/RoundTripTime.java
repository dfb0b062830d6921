package io.rpcc.core.internal.transport;

import java.util.Arrays;

/**
 * The round-trip time of one connection, estimated from its recent samples: their median, and the
 * median of their distances to it (the median absolute deviation). Samples come from the rpcc
 * handshake (the time from sending this node's HELLO to reading the peer's) and from PINGs (the time
 * from sending one to reading its answer). The estimate keeps the last {@value #WINDOW} samples of the
 * last {@value #MAX_AGE_SECONDS} s (at least the latest), so that it follows a route or load that
 * changes, and medians, so that a few samples slowed by something else (a connection's set-up, a JIT
 * compiling, a burst of traffic) do not carry it away. The handshake's sample is provisional: the
 * connection's set-up work on both sides inflates it, so the first PING's sample replaces it.
 *
 * <p>What a chain's deadline budget is charged for one crossing of the connection is
 * {@link #oneWayNanos()}: half the median round trip plus its median deviation, so that a crossing
 * somewhat slower than usual is still covered. Thread-safe.
 */
public final class RoundTripTime {
    /** A sample over this is not believed (a peer that answers a PING this late is stalled, not far). */
    static final long MAX_SAMPLE_NANOS = 60_000_000_000L;
    /** How many recent samples the estimate keeps. */
    static final int WINDOW = 16;
    /** How old a sample the estimate keeps, in seconds (the latest is kept however old). */
    static final int MAX_AGE_SECONDS = 10;
    private static final long MAX_AGE_NANOS = MAX_AGE_SECONDS * 1_000_000_000L;

    // guarded by this: the samples, oldest first, in a ring
    private final long[] rtts = new long[WINDOW];
    private final long[] takenAt = new long[WINDOW];
    private int first;
    private int count;
    private boolean provisional;
    private long samples;
    private long medianNanos = -1; // -1: no sample yet
    private long deviationNanos;
    private long minNanos = -1;
    private long helloSentNanos; // 0: not sent (or answered)
    private long pingPayload; // the PING on its way (its payload, the time it was sent), 0: none

    /**
     * A round trip of {@code rttNanos} was measured at {@code nowNanos}; {@code provisional} for the
     * handshake's (replaced by the next sample instead of kept with it). Samples that are not
     * positive or over a minute are ignored.
     */
    synchronized void sample(long rttNanos, long nowNanos, boolean provisional) {
        if (rttNanos <= 0 || rttNanos > MAX_SAMPLE_NANOS) {
            return;
        }
        if (this.provisional) {
            count = 0;
        }
        while (count > 0 && (count == WINDOW || nowNanos - takenAt[first] > MAX_AGE_NANOS)) {
            first = (first + 1) % WINDOW;
            count--;
        }
        int at = (first + count) % WINDOW;
        rtts[at] = rttNanos;
        takenAt[at] = nowNanos;
        count++;
        this.provisional = provisional;
        samples++;
        long[] sorted = new long[count];
        for (int i = 0; i < count; i++) {
            sorted[i] = rtts[(first + i) % WINDOW];
        }
        Arrays.sort(sorted);
        minNanos = sorted[0];
        medianNanos = median(sorted);
        for (int i = 0; i < count; i++) {
            sorted[i] = Math.abs(sorted[i] - medianNanos);
        }
        Arrays.sort(sorted);
        deviationNanos = median(sorted);
    }

    private static long median(long[] sorted) {
        int n = sorted.length;
        return n % 2 == 1 ? sorted[n / 2] : (sorted[n / 2 - 1] + sorted[n / 2]) / 2;
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

    /** The payload of the measuring PING on its way, 0 if none. */
    synchronized long pingPayload() {
        return pingPayload;
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

    /** The estimated time of one crossing: half the median round trip plus its median deviation, or -1 before the first sample. */
    public synchronized long oneWayNanos() {
        return medianNanos < 0 ? -1 : medianNanos / 2 + deviationNanos;
    }

    /** The median recent round trip, or -1 before the first sample. */
    public synchronized long medianNanos() {
        return medianNanos;
    }

    /**
     * The shortest recent round trip, or -1 before the first sample: the connection's round trip
     * without the queues that lengthen some of them (what a frame's transmission time is measured
     * against, {@link LinkThroughput}).
     */
    public synchronized long minNanos() {
        return minNanos;
    }

    /** The median deviation of the recent round trips from their median (0 with one sample). */
    public synchronized long deviationNanos() {
        return deviationNanos;
    }

    /** How many samples were taken. */
    public synchronized long samples() {
        return samples;
    }

    /** Whether the estimate is missing, provisional, or its last sample is older than {@code maxAgeNanos} at {@code nowNanos}. */
    synchronized boolean stale(long nowNanos, long maxAgeNanos) {
        return count == 0 || provisional || nowNanos - takenAt[(first + count - 1) % WINDOW] > maxAgeNanos;
    }

    @Override
    public synchronized String toString() {
        return medianNanos < 0 ? "no round-trip sample yet"
                : String.format("round trip %.2f ms ± %.2f ms (%d samples%s)", medianNanos / 1e6, deviationNanos / 1e6,
                        samples, provisional ? ", provisional" : "");
    }
}
