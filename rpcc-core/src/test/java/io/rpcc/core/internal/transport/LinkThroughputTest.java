package io.rpcc.core.internal.transport;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

/** A connection's throughput from the PINGs behind its large frames. */
class LinkThroughputTest {
    private static final long MS = 1_000_000;

    @Test
    void aProbesAnswerLaterThanARoundTripTimesTheFrame() {
        LinkThroughput t = new LinkThroughput();
        assertEquals(-1, t.bytesPerSecond());
        long sent = 1_000 * MS;
        t.probeSent(sent, 630_000);
        assertFalse(t.mayProbe(sent + MS), "one probe on its way at a time");
        // round trip 32 ms, 630 KB at 6.3 MB/s: 100 ms more
        assertTrue(t.answered(sent, sent + 132 * MS, 32 * MS));
        assertEquals(6_300_000, t.bytesPerSecond());
        assertTrue(t.mayProbe(sent + 133 * MS));
    }

    @Test
    void otherAnswersAndUnmeasurableOnesTakeNoSample() {
        LinkThroughput t = new LinkThroughput();
        t.probeSent(5 * MS, 100_000);
        assertFalse(t.answered(4 * MS, 50 * MS, 32 * MS), "the answer to another PING");
        assertTrue(t.answered(5 * MS, 5 * MS + 32 * MS + 100_000, 32 * MS), "its own answer");
        assertEquals(-1, t.bytesPerSecond(), "within 0.2 ms of a round trip: faster than it can tell");
        t.probeSent(60 * MS, 100_000);
        assertTrue(t.answered(60 * MS, 70 * MS, -1));
        assertEquals(-1, t.bytesPerSecond(), "no round trip known");
    }

    @Test
    void theEstimateIsTheMedianOfRecentSamples() {
        LinkThroughput t = new LinkThroughput();
        t.sample(1_000_000, MS);
        t.sample(9_000_000, 2 * MS);
        t.sample(6_000_000, 3 * MS);
        assertEquals(6_000_000, t.bytesPerSecond());
        assertEquals(3, t.samples());
        t.probeSent(10 * MS, 100_000);
        assertTrue(t.mayProbe(10 * MS + LinkThroughput.PROBE_TIMEOUT_NANOS + 1), "a probe not answered is given up");
    }
}
