package io.rpcc.core.internal.wire;

import io.rpcc.core.spi.EngineSpi;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;
import java.security.SecureRandom;

/**
 * The secret of a chain: 128 random bits drawn by its originator, carried in every hop request and
 * echoed in every RESULT, ERROR, REPLY, QUIET and CANCEL frame. The originator (for CANCEL, each node on the chain's trail) accepts those frames only
 * when the secret matches, so a peer that is not a participant of the chain cannot end it, fail it,
 * cancel it or add replies to it, even knowing its (sequential) id. It never appears in logs or messages.
 *
 * @param high the first 64 bits
 * @param low the last 64 bits
 */
@EngineSpi
public record ChainSecret(long high, long low) {
    private static final SecureRandom RANDOM = new SecureRandom();
    private static final VarHandle LONGS = MethodHandles.byteArrayViewVarHandle(long[].class, ByteOrder.BIG_ENDIAN);

    /** A fresh secret: one draw of 16 bytes from the node's strong source. */
    public static ChainSecret random() {
        byte[] bits = new byte[16];
        RANDOM.nextBytes(bits);
        return new ChainSecret((long) LONGS.get(bits, 0), (long) LONGS.get(bits, 8));
    }

    /**
     * The secret that the frames back of attempt {@code attempt} of the chain carry (a chain sent
     * again by its originator, paper 3.9): this secret for attempt 1, else one derived from it and
     * the attempt number, so that a late frame of an earlier attempt cannot end or feed a later one.
     */
    public ChainSecret forAttempt(int attempt) {
        if (attempt <= 1) {
            return this;
        }
        long a = mix(attempt * 0xD1B5_4A32_D192_ED03L + 0x2545_F491_4F6C_DD1DL);
        return new ChainSecret(mix(high ^ a), mix(low ^ Long.rotateLeft(a, 29)));
    }

    /** SplitMix64's finalizer: every input bit reaches every output bit. */
    private static long mix(long z) {
        z = (z ^ (z >>> 30)) * 0xBF58_476D_1CE4_E5B9L;
        z = (z ^ (z >>> 27)) * 0x94D0_49BB_1331_11EBL;
        return z ^ (z >>> 31);
    }

    /** Whether {@code other} is this secret, in time that does not depend on where they differ. */
    public boolean matches(ChainSecret other) {
        return other != null && ((high ^ other.high) | (low ^ other.low)) == 0;
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof ChainSecret s && matches(s);
    }

    @Override
    public int hashCode() {
        return 0; // not a hash key: a hash of the bits would leak some of them
    }

    @Override
    public String toString() {
        return "ChainSecret[redacted]";
    }
}
