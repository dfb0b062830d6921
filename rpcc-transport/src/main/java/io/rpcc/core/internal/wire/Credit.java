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
    /**
     * The largest numerator kept in a {@code long} (62 bits): two such, each shifted to a common
     * exponent within that bound, add up without overflow. Larger ones are kept as {@link BigInteger}.
     * A chain's shares are halves and sums of a few of them, so their numerators are small: the
     * arithmetic of every frame's credit then allocates no {@code BigInteger}.
     */
    private static final int SMALL_BITS = 62;

    /** The whole credit of a chain. */
    public static final Credit ONE = new Credit(1, null, 0);
    /** No credit. */
    public static final Credit ZERO = new Credit(0, null, 0);

    /** The numerator if {@link #big} is {@code null} (then it fits in {@link #SMALL_BITS} bits). */
    private final long small;
    /** The numerator if it does not fit in {@link #SMALL_BITS} bits, else {@code null}: the form is canonical. */
    private final BigInteger big;
    private final int exponent;

    private Credit(long small, BigInteger big, int exponent) {
        this.small = small;
        this.big = big;
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
        if (numerator.signum() >= 0 && numerator.bitLength() <= SMALL_BITS) {
            return of(numerator.longValue(), exponent);
        }
        if (numerator.signum() < 0 || exponent < 0 || exponent > MAX_EXPONENT
                || numerator.bitLength() > exponent + 1) {
            throw new IllegalArgumentException("invalid credit " + (numerator.bitLength() > 64 ? "(long)" : numerator)
                    + "/2^" + exponent);
        }
        int shift = Math.min(numerator.getLowestSetBit(), exponent);
        BigInteger n = numerator.shiftRight(shift);
        return n.bitLength() <= SMALL_BITS ? new Credit(n.longValue(), null, exponent - shift)
                : new Credit(0, n, exponent - shift);
    }

    /**
     * The credit {@code numerator / 2^exponent}, normalized; validates what came from the wire, as
     * {@link #of(BigInteger, int)} does.
     */
    public static Credit of(long numerator, int exponent) {
        if (numerator < 0 || exponent < 0 || exponent > MAX_EXPONENT || bitLength(numerator) > exponent + 1) {
            throw new IllegalArgumentException("invalid credit " + numerator + "/2^" + exponent);
        }
        if (numerator == 0) {
            return ZERO;
        }
        if (bitLength(numerator) > SMALL_BITS) {
            return of(BigInteger.valueOf(numerator), exponent);
        }
        int shift = Math.min(Long.numberOfTrailingZeros(numerator), exponent);
        long n = numerator >>> shift;
        int e = exponent - shift;
        if (n == 1 && e == 0) {
            return ONE;
        }
        return new Credit(n, null, e);
    }

    private static int bitLength(long nonNegative) {
        return Long.SIZE - Long.numberOfLeadingZeros(nonNegative);
    }

    /** Half of this credit (the other half is the same value). */
    public Credit half() {
        if (isZero()) {
            throw new IllegalStateException("cannot split zero credit");
        }
        boolean odd = big == null ? (small & 1) != 0 : big.testBit(0);
        if (exponent >= MAX_EXPONENT && odd) {
            throw new IllegalStateException("credit cannot be split further (2^-" + MAX_EXPONENT + ")");
        }
        if (big == null) {
            return odd ? new Credit(small, null, exponent + 1) : new Credit(small >>> 1, null, exponent);
        }
        return odd ? new Credit(0, big, exponent + 1) : of(big.shiftRight(1), exponent);
    }

    /** The sum of this credit and {@code other}. */
    public Credit plus(Credit other) {
        int e = Math.max(exponent, other.exponent);
        if (big == null && other.big == null) {
            int up = e - exponent;
            int otherUp = e - other.exponent;
            if (bitLength(small) + up <= SMALL_BITS && bitLength(other.small) + otherUp <= SMALL_BITS) {
                return of((small << up) + (other.small << otherUp), e); // (each below 2^62: no overflow)
            }
        }
        BigInteger sum = numerator().shiftLeft(e - exponent).add(other.numerator().shiftLeft(e - other.exponent));
        return of(sum, e);
    }

    /** Whether this is exactly one. */
    public boolean isOne() {
        return exponent == 0 && big == null && small == 1;
    }

    /** Whether this is more than one (a protocol error). */
    public boolean exceedsOne() {
        if (big == null) {
            return exponent < SMALL_BITS && small > (1L << exponent);
        }
        return big.compareTo(BigInteger.ONE.shiftLeft(exponent)) > 0;
    }

    /** Whether this is zero. */
    public boolean isZero() {
        return big == null && small == 0;
    }

    /** The numerator. */
    public BigInteger numerator() {
        return big != null ? big : BigInteger.valueOf(small);
    }

    /** The numerator's bytes as {@link BigInteger#toByteArray()} gives them (big-endian two's complement, shortest). */
    byte[] numeratorBytes() {
        if (big != null) {
            return big.toByteArray();
        }
        int n = bitLength(small) / 8 + 1; // (room for the sign bit)
        byte[] b = new byte[n];
        for (int i = n - 1, shift = 0; i >= 0; i--, shift += 8) {
            b[i] = (byte) (small >>> shift);
        }
        return b;
    }

    /** The exponent of the denominator. */
    public int exponent() {
        return exponent;
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof Credit c && c.exponent == exponent && c.small == small && java.util.Objects.equals(c.big, big);
    }

    @Override
    public int hashCode() {
        return numerator().hashCode() * 31 + exponent;
    }

    @Override
    public String toString() {
        return (big != null ? big.toString() : Long.toString(small)) + "/2^" + exponent;
    }
}
