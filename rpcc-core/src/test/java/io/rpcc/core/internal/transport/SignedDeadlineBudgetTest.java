package io.rpcc.core.internal.transport;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.rpcc.core.internal.wire.ChainHeader;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * The budget a hop runs under at a TLS node ({@link ChainCredentials#budgetWithin}): the smaller of
 * the header's claim and what the signed deadline, plus clock skew, left when the request arrived.
 * A claim never adds to the signed deadline; a request that waited is charged what it waited once.
 */
class SignedDeadlineBudgetTest {
    private static final long SKEW = 5_000;
    private static final long NOW = 1_800_000_000_000L;

    @Test
    void aClaimWithinTheSignedDeadlineIsKept() {
        long claim = TimeUnit.SECONDS.toNanos(10);
        assertEquals(claim, ChainCredentials.budgetWithin(claim, NOW + 12_000, SKEW, NOW, 0));
    }

    @Test
    void aClaimThatGrewOnTheWayIsCutBackToTheSignedDeadlinePlusSkew() {
        // sent with 19 s left; read 6 s later, when the signed deadline leaves 13 s
        long claim = TimeUnit.SECONDS.toNanos(19);
        assertEquals(TimeUnit.SECONDS.toNanos(18), ChainCredentials.budgetWithin(claim, NOW + 13_000, SKEW, NOW, 0));
    }

    @Test
    void noDeadlineClaimedAgainstASignedOneIsCutBackToIt() {
        assertEquals(TimeUnit.SECONDS.toNanos(8),
                ChainCredentials.budgetWithin(ChainHeader.NO_DEADLINE, NOW + 3_000, SKEW, NOW, 0));
    }

    @Test
    void aSignedDeadlinePastTheSkewLeavesNothing() {
        long budget = ChainCredentials.budgetWithin(TimeUnit.HOURS.toNanos(1), NOW - 6_000, SKEW, NOW, 0);
        assertEquals(TimeUnit.SECONDS.toNanos(-1), budget, "the hop fails as one that starts after the deadline");
    }

    @Test
    void theBudgetCountsFromTheArrivalNotFromTheCheck() {
        // checked 2 s after the request's first bytes were read: the budget, counted from then, is 2 s more
        long budget = ChainCredentials.budgetWithin(ChainHeader.NO_DEADLINE, NOW + 1_000, SKEW, NOW,
                TimeUnit.SECONDS.toNanos(2));
        assertEquals(TimeUnit.SECONDS.toNanos(8), budget);
    }

    @Test
    void extremeSignedDeadlinesNeitherOverflowNorMeanNoDeadline() {
        for (long deadline : new long[] {Long.MAX_VALUE, Long.MIN_VALUE, 1, NOW}) {
            long budget = ChainCredentials.budgetWithin(ChainHeader.NO_DEADLINE, deadline, SKEW, NOW, Long.MAX_VALUE);
            assertTrue(budget != ChainHeader.NO_DEADLINE, deadline + " gave " + budget);
            assertTrue(deadline > NOW ? budget > 0 : budget <= TimeUnit.DAYS.toNanos(1001), deadline + " gave " + budget);
        }
    }

    @Test
    void neverMoreThanTheClaimNorThanTheSignedDeadlineAllows() {
        SplittableRandom random = new SplittableRandom(42);
        for (int i = 0; i < 100_000; i++) {
            long claim = random.nextInt(4) == 0 ? ChainHeader.NO_DEADLINE : random.nextLong(-1, TimeUnit.HOURS.toNanos(2));
            long deadline = NOW + random.nextLong(-TimeUnit.HOURS.toMillis(1), TimeUnit.HOURS.toMillis(1));
            long since = random.nextLong(0, TimeUnit.SECONDS.toNanos(30));
            long budget = ChainCredentials.budgetWithin(claim, deadline, SKEW, NOW, since);
            long allowed = TimeUnit.MILLISECONDS.toNanos(deadline + SKEW - NOW) + since;
            assertEquals(claim == ChainHeader.NO_DEADLINE ? allowed : Math.min(claim, allowed), budget);
        }
    }
}
