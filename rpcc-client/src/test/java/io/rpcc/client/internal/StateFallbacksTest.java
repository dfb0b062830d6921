package io.rpcc.client.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.rpcc.core.StateChoice;
import io.rpcc.core.internal.chain.HopRouter;
import org.junit.jupiter.api.Test;

/** The adaptive state fall-back's choice, from given round trips, throughputs and sizes. */
class StateFallbacksTest {
    private static final long MS = 1_000_000;
    /** Figure 10's link: Redmond → Mountain View, 32 ms round trip, 6.3 MB/s. */
    private static final HopRouter.Link WAN = new HopRouter.Link(32 * MS, 6_300_000);

    private static StateChoice choose(long bytes, String next, HopRouter.Link toNext, long onwardNanos) {
        return StateFallbacks.choose(1, "a", new StateFallbacks.Inputs(bytes, WAN, next, toNext, onwardNanos));
    }

    @Test
    void carriesWhileTheTransmissionCostsLessThanTheRoundTripItSaves() {
        // the next server beside 'a' (1 ms on): carry while S / 6.3 MB/s < 16 + 16 - 1 ms, below 195,300 bytes
        StateChoice small = choose(190_000, "b", WAN, MS);
        StateChoice large = choose(200_000, "b", WAN, MS);
        assertTrue(small.carried(), small.toString());
        assertFalse(large.carried(), large.toString());
        assertEquals(16 * MS + 200_000 * 1_000_000_000L / 6_300_000 + MS, large.carryNanos(), 1);
        assertEquals(48 * MS, large.fallbackNanos());
        assertEquals(200_000, large.stateBytes());
    }

    @Test
    void serversFarApartMoveTheCrossoverDown() {
        // 15 ms between the servers: carry while S / 6.3 MB/s < 32 - 15 ms, below 107,100 bytes
        assertTrue(choose(105_000, "b", WAN, 15 * MS).carried());
        assertFalse(choose(110_000, "b", WAN, 15 * MS).carried());
    }

    @Test
    void aNextServerFartherFromTheClientFavoursCarrying() {
        HopRouter.Link far = new HopRouter.Link(100 * MS, 6_300_000);
        // kept: 16 back + 50 out = 66 ms against S / 6.3 MB/s + 1 ms: carry up to 409,500 bytes
        assertTrue(choose(400_000, "b", far, MS).carried());
        assertFalse(choose(420_000, "b", far, MS).carried());
    }

    @Test
    void withNothingLearnedTheNextServerIsTakenToBeBesideTheFirst() {
        // onward 0 ms, out again 16 ms: carry while S / 6.3 MB/s < 32 ms, below 201,600 bytes
        assertTrue(choose(200_000, null, HopRouter.Link.UNKNOWN, -1).carried());
        StateChoice c = choose(203_000, null, HopRouter.Link.UNKNOWN, -1);
        assertFalse(c.carried());
        assertTrue(c.reason().contains("not learned yet"), c.reason());
    }

    @Test
    void withoutMeasurementsTheStateIsCarried() {
        StateChoice noThroughput = StateFallbacks.choose(2, "a", new StateFallbacks.Inputs(10_000_000,
                new HopRouter.Link(32 * MS, -1), "b", WAN, MS));
        assertTrue(noThroughput.carried());
        assertEquals(-1, noThroughput.carryNanos());
        assertTrue(noThroughput.reason().contains("no throughput"), noThroughput.reason());
        StateChoice noRtt = StateFallbacks.choose(2, "a", new StateFallbacks.Inputs(10_000_000, HopRouter.Link.UNKNOWN,
                "b", WAN, MS));
        assertTrue(noRtt.carried());
        assertTrue(noRtt.reason().contains("no round trip"), noRtt.reason());
    }

    @Test
    void theBreakEvenSizeIsWhereTheChoiceTurns() {
        for (StateFallbacks.Inputs in : new StateFallbacks.Inputs[] {
                new StateFallbacks.Inputs(-1, WAN, "b", WAN, MS),
                new StateFallbacks.Inputs(-1, WAN, "b", WAN, 15 * MS),
                new StateFallbacks.Inputs(-1, WAN, null, HopRouter.Link.UNKNOWN, -1),
                new StateFallbacks.Inputs(-1, new HopRouter.Link(2 * MS, 1_000_000_000), "b", WAN, MS)}) {
            long breakEven = StateFallbacks.breakEvenBytes(in);
            assertTrue(breakEven > 0, in.toString());
            assertTrue(StateFallbacks.choose(1, "a", withBytes(in, breakEven)).carried(), in + " at " + breakEven);
            assertFalse(StateFallbacks.choose(1, "a", withBytes(in, breakEven + 1)).carried(), in + " past " + breakEven);
            assertEquals(breakEven + 1, StateFallbacks.countingLimit(in));
        }
        // 16 + 16 - 1 ms at 6.3 MB/s
        assertEquals(195_300, StateFallbacks.breakEvenBytes(new StateFallbacks.Inputs(-1, WAN, "b", WAN, MS)), 1);
    }

    @Test
    void withoutMeasurementsTheWholeStateIsCounted() {
        StateFallbacks.Inputs unmeasured = new StateFallbacks.Inputs(-1, new HopRouter.Link(32 * MS, -1), "b", WAN, MS);
        assertEquals(-1, StateFallbacks.breakEvenBytes(unmeasured));
        assertEquals(Long.MAX_VALUE, StateFallbacks.countingLimit(unmeasured));
        // the next server so far that even an empty state is better kept
        StateFallbacks.Inputs onwardSlow = new StateFallbacks.Inputs(-1, WAN, "b", WAN, 100 * MS);
        assertEquals(0, StateFallbacks.breakEvenBytes(onwardSlow));
        assertEquals(1, StateFallbacks.countingLimit(onwardSlow));
    }

    @Test
    void aStateCountedPastTheBreakEvenSizeIsKeptAndSaysSo() {
        StateChoice c = StateFallbacks.choose(1, "a", new StateFallbacks.Inputs(195_302, WAN, "b", WAN, MS), true);
        assertFalse(c.carried());
        assertTrue(c.reason().startsWith("state over 190.7 KB"), c.reason());
    }

    @Test
    void theStatesTransmissionIsInTheFirstServersTimeNotSubtractedTwice() {
        // 150 KB to 'a' (24.4 ms at 6.3 MB/s, in 'a''s time: it counts from the frame's first bytes), 1 ms of
        // work there, 15 ms on to 'b', 0.5 ms there, 16 ms back: 16 + 24.4 + 1 + 15 + 0.5 + 16 ms in all
        long elapsed = 16 * MS + 24_400_000 + MS + 15 * MS + MS / 2 + 16 * MS;
        assertEquals(15 * MS, StateFallbacks.onwardSample(elapsed, 16 * MS, 16 * MS, 24_400_000 + MS + MS / 2, 1));
        assertEquals(0, StateFallbacks.onwardSample(30 * MS, 16 * MS, 16 * MS, MS, 1), "never negative");
    }

    private static StateFallbacks.Inputs withBytes(StateFallbacks.Inputs in, long bytes) {
        return new StateFallbacks.Inputs(bytes, in.toServer(), in.next(), in.toNext(), in.onwardNanos());
    }
}
