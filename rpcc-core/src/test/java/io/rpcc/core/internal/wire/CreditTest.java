package io.rpcc.core.internal.wire;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.math.BigInteger;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

/** Credit arithmetic is exact: however it is split, the shares add up to exactly one. */
class CreditTest {
    @Test
    void randomSplitsAlwaysAddUpToOneInAnyOrder() {
        Random random = new Random(11);
        for (int round = 0; round < 2000; round++) {
            List<Credit> shares = new ArrayList<>(List.of(Credit.ONE));
            int splits = random.nextInt(200);
            for (int i = 0; i < splits; i++) {
                Credit c = shares.remove(random.nextInt(shares.size()));
                shares.add(c.half());
                shares.add(c.half());
            }
            Collections.shuffle(shares, random);
            Credit sum = Credit.ZERO;
            for (int i = 0; i < shares.size(); i++) {
                assertFalse(sum.isOne(), "not one before the last share");
                sum = sum.plus(shares.get(i));
            }
            assertTrue(sum.isOne(), "exactly one after all " + shares.size() + " shares");
            assertFalse(sum.exceedsOne());
        }
    }

    @Test
    void deepChainsKeepExactShares() {
        Credit c = Credit.ONE;
        Credit returned = Credit.ZERO;
        for (int hop = 0; hop < 5000; hop++) { // every hop keeps half and passes half
            returned = returned.plus(c.half());
            c = c.half();
        }
        assertFalse(returned.isOne());
        assertTrue(returned.plus(c).isOne());
        assertEquals(5000, c.exponent());
        assertEquals(BigInteger.ONE, c.numerator());
    }

    @Test
    void normalizesAndDetectsExcess() {
        assertEquals(Credit.ONE, Credit.of(BigInteger.valueOf(4), 2));
        assertTrue(Credit.ONE.plus(Credit.ONE.half()).exceedsOne());
        assertEquals(Credit.ZERO, Credit.of(BigInteger.ZERO, 7));
    }
}
