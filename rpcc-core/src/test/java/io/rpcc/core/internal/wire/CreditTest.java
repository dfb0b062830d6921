package io.rpcc.core.internal.wire;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
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

    /**
     * Small numerators are kept in a {@code long}, large ones in a {@code BigInteger}: every operation
     * agrees with exact rational arithmetic across the boundary, and equal values are equal however made.
     */
    @Test
    void smallAndLargeNumeratorsAgreeWithExactArithmetic() {
        Random random = new Random(5);
        for (int round = 0; round < 20_000; round++) {
            int e1 = random.nextInt(80);
            int e2 = random.nextInt(80);
            BigInteger n1 = new BigInteger(e1 + 1, random).min(BigInteger.ONE.shiftLeft(e1));
            BigInteger n2 = new BigInteger(e2 + 1, random).min(BigInteger.ONE.shiftLeft(e2));
            Credit a = Credit.of(n1, e1);
            Credit b = Credit.of(n2, e2);
            int e = Math.max(e1, e2);
            BigInteger exactSum = n1.shiftLeft(e - e1).add(n2.shiftLeft(e - e2));
            if (exactSum.bitLength() > e + 1) { // two: no credit is that much
                assertThrows(IllegalArgumentException.class, () -> a.plus(b));
                continue;
            }
            Credit sum = a.plus(b);
            assertEquals(Credit.of(exactSum, e), sum);
            assertEquals(exactSum, sum.numerator().shiftLeft(e - sum.exponent()), "sum of " + a + " and " + b);
            assertEquals(exactSum.compareTo(BigInteger.ONE.shiftLeft(e)) > 0, sum.exceedsOne());
            assertEquals(exactSum.equals(BigInteger.ONE.shiftLeft(e)), sum.isOne());
            assertEquals(sum, Credit.of(sum.numerator(), sum.exponent()));
            assertEquals(sum.hashCode(), Credit.of(sum.numerator(), sum.exponent()).hashCode());
            assertArrayEquals(sum.numerator().toByteArray(), sum.numeratorBytes());
            if (!a.isZero()) {
                Credit h = a.half();
                assertEquals(a, h.plus(h));
                assertEquals(Credit.of(n1, e1 + 1), h);
            }
            if (n1.bitLength() <= 62) {
                assertEquals(a, Credit.of(n1.longValue(), e1));
            }
        }
    }

    @Test
    void invalidLongNumeratorsAreRefusedAsBigOnesAre() {
        IllegalArgumentException negative = assertThrows(IllegalArgumentException.class, () -> Credit.of(-3, 4));
        assertEquals("invalid credit -3/2^4", negative.getMessage());
        assertEquals(negative.getMessage(), assertThrows(IllegalArgumentException.class,
                () -> Credit.of(BigInteger.valueOf(-3), 4)).getMessage());
        assertThrows(IllegalArgumentException.class, () -> Credit.of(5, 1)); // 5/2 exceeds what a share can be
        assertThrows(IllegalArgumentException.class, () -> Credit.of(1, Credit.MAX_EXPONENT + 1));
        assertEquals(Credit.of(BigInteger.ONE.shiftLeft(62), 62), Credit.of(1L << 62, 62));
        assertTrue(Credit.of(Long.MAX_VALUE, 63).plus(Credit.of(1, 63)).isOne());
    }
}
