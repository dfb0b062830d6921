package io.rpcc.core.internal.transport;

import java.util.Arrays;

/**
 * The throughput of one connection in the direction this node sends, estimated from its recent large
 * frames: after a frame of at least {@link #PROBE_MIN_BYTES} goes out, a PING follows it on the same
 * connection (a probe, {@link RoundTrips#probe}). The PING's bytes cross the link after the frame's,
 * so its answer comes back one frame-transmission later than a round trip:
 * {@code bytes / (answer time - shortest recent round trip)} is a sample of the link's bandwidth as this
 * connection gets it. The estimate is the median of the last {@value #WINDOW} samples of the last
 * {@value #MAX_AGE_SECONDS} s (at least the latest). What waited in the connection's queue before
 * the frame delays the answer too, so an estimate errs on the low side. Thread-safe.
 */
public final class LinkThroughput {
    /** Frames at least this large are followed by a probe (when none is on its way). */
    public static final int PROBE_MIN_BYTES = 64 * 1024;
    /** A probe whose answer did not come within this is given up (a new one may go). */
    static final long PROBE_TIMEOUT_NANOS = 10_000_000_000L;
    /** A probe answered less than this after a round trip says only that the link is faster than it can tell. */
    static final long MIN_TRANSMISSION_NANOS = 200_000L;
    static final int WINDOW = 8;
    static final int MAX_AGE_SECONDS = 60;
    private static final long MAX_AGE_NANOS = MAX_AGE_SECONDS * 1_000_000_000L;

    // guarded by this
    private final long[] rates = new long[WINDOW];
    private final long[] takenAt = new long[WINDOW];
    private int first;
    private int count;
    private long samples;
    private long median = -1;
    private long probePayload; // 0: none on its way
    private long probeBytes;

    /**
     * Whether a probe may follow a frame sent at {@code nowNanos}: none is on its way, or the one on
     * its way was given up.
     */
    synchronized boolean mayProbe(long nowNanos) {
        return probePayload == 0 || nowNanos - probePayload > PROBE_TIMEOUT_NANOS;
    }

    /** A probe with payload {@code payload} (its send time) follows a frame of {@code bytes}. */
    synchronized void probeSent(long payload, long bytes) {
        probePayload = payload;
        probeBytes = bytes;
    }

    /**
     * A PING answer with {@code payload} arrived at {@code nowNanos}: whether it answers the probe on
     * its way; if it does, a sample is taken against the connection's shortest recent round trip
     * {@code rttNanos} (none if that is unknown).
     */
    synchronized boolean answered(long payload, long nowNanos, long rttNanos) {
        if (payload == 0 || payload != probePayload) {
            return false;
        }
        probePayload = 0;
        long transmission = nowNanos - payload - rttNanos;
        if (rttNanos > 0 && transmission >= MIN_TRANSMISSION_NANOS) {
            sample((long) (probeBytes * 1e9 / transmission), nowNanos);
        }
        return true;
    }

    /** A throughput of {@code bytesPerSecond} was measured at {@code nowNanos}. */
    synchronized void sample(long bytesPerSecond, long nowNanos) {
        if (bytesPerSecond <= 0) {
            return;
        }
        while (count > 0 && (count == WINDOW || nowNanos - takenAt[first] > MAX_AGE_NANOS)) {
            first = (first + 1) % WINDOW;
            count--;
        }
        int at = (first + count) % WINDOW;
        rates[at] = bytesPerSecond;
        takenAt[at] = nowNanos;
        count++;
        samples++;
        long[] sorted = new long[count];
        for (int i = 0; i < count; i++) {
            sorted[i] = rates[(first + i) % WINDOW];
        }
        Arrays.sort(sorted);
        median = count % 2 == 1 ? sorted[count / 2] : (sorted[count / 2 - 1] + sorted[count / 2]) / 2;
    }

    /** The estimated bytes per second this node gets through the connection, or -1 before the first sample. */
    public synchronized long bytesPerSecond() {
        return median;
    }

    /** How many samples were taken. */
    public synchronized long samples() {
        return samples;
    }

    @Override
    public synchronized String toString() {
        return median < 0 ? "no throughput sample yet"
                : String.format("throughput %.2f MB/s (%d samples)", median / 1e6, samples);
    }
}
