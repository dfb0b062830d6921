package io.rpcc.core.internal.wire;

import io.rpcc.core.spi.EngineSpi;
import java.math.BigInteger;

/**
 * A share of a chain's termination credit (weighted reference counting; F. Mattern, "Global
 * quiescence detection based on credit distribution and recovery", 1989): an exact dyadic
 * fraction {@code numerator / 2^exponent}. The originator starts with {@link #ONE}; every message
 * that carries work forward carries a share, every hop that becomes quiet returns what it holds,
 * and the chain is finished when the originator has recovered exactly one. Shares are only ever
 * halved or added, so no rounding can occur; there is no floating point anywhere.
 */
@EngineSpi
public final class Credit {
    /** The whole credit of a chain. */
    public static final Credit ONE = new Credit(BigInteger.ONE, 0);
    /** No credit. */
    public static final Credit ZERO = new Credit(BigInteger.ZERO, 0);

    private final BigInteger numerator;
    private final int exponent;

    private Credit(BigInteger numerator, int exponent) {
        this.numerator = numerator;
        this.exponent = exponent;
    }

    /**
     * The largest exponent accepted from the wire: 2^-65536 is far below any share a real chain
     * makes (one halving per hop or split), and the bound keeps a corrupt frame from making the
     * originator compute with gigabit numbers.
     */
    public static final int MAX_EXPONENT = 1 << 16;

    /** The credit {@code numerator / 2^exponent}, normalized; validates what came from the wire. */
    public static Credit of(BigInteger numerator, int exponent) {
        if (numerator.signum() < 0 || exponent < 0 || exponent > MAX_EXPONENT
                || numerator.bitLength() > exponent + 1) {
            throw new IllegalArgumentException("invalid credit " + (numerator.bitLength() > 64 ? "(long)" : numerator)
                    + "/2^" + exponent);
        }
        if (numerator.signum() == 0) {
            return ZERO;
        }
        int shift = Math.min(numerator.getLowestSetBit(), exponent);
        return new Credit(numerator.shiftRight(shift), exponent - shift);
    }

    /** Half of this credit (the other half is the same value). */
    public Credit half() {
        if (numerator.signum() == 0) {
            throw new IllegalStateException("cannot split zero credit");
        }
        if (exponent >= MAX_EXPONENT && numerator.testBit(0)) {
            throw new IllegalStateException("credit cannot be split further (2^-" + MAX_EXPONENT + ")");
        }
        return numerator.testBit(0) ? new Credit(numerator, exponent + 1) : new Credit(numerator.shiftRight(1), exponent);
    }

    /** The sum of this credit and {@code other}. */
    public Credit plus(Credit other) {
        int e = Math.max(exponent, other.exponent);
        BigInteger sum = numerator.shiftLeft(e - exponent).add(other.numerator.shiftLeft(e - other.exponent));
        return of(sum, e);
    }

    /** Whether this is exactly one. */
    public boolean isOne() {
        return exponent == 0 && numerator.equals(BigInteger.ONE);
    }

    /** Whether this is more than one (a protocol error). */
    public boolean exceedsOne() {
        return numerator.compareTo(BigInteger.ONE.shiftLeft(exponent)) > 0;
    }

    /** Whether this is zero. */
    public boolean isZero() {
        return numerator.signum() == 0;
    }

    /** The numerator. */
    public BigInteger numerator() {
        return numerator;
    }

    /** The exponent of the denominator. */
    public int exponent() {
        return exponent;
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof Credit c && c.exponent == exponent && c.numerator.equals(numerator);
    }

    @Override
    public int hashCode() {
        return numerator.hashCode() * 31 + exponent;
    }

    @Override
    public String toString() {
        return numerator + "/2^" + exponent;
    }
}
