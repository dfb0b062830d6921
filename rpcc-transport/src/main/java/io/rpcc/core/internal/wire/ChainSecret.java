package io.rpcc.core.internal.wire;

import io.rpcc.core.spi.EngineSpi;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;
import java.security.SecureRandom;
import java.util.concurrent.locks.ReentrantLock;

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
    /** Secrets drawn at once: one draw of the strong source (a lock and a digest) per 32 chains, not per chain. */
    private static final int BATCH = 32;
    private static final ReentrantLock DRAWN_LOCK = new ReentrantLock(); // (not a monitor: callers may be virtual threads)
    private static final byte[] DRAWN = new byte[16 * BATCH];
    /** Where the next unused secret starts in {@link #DRAWN}; {@code DRAWN.length}: none left. */
    private static int next = DRAWN.length;

    /**
     * A fresh secret: 16 bytes of the JVM's strong source, drawn in batches of {@value #BATCH}
     * secrets; each byte drawn is handed out once and wiped when taken.
     */
    public static ChainSecret random() {
        DRAWN_LOCK.lock();
        try {
            if (next == DRAWN.length) {
                RANDOM.nextBytes(DRAWN);
                next = 0;
            }
            int at = next;
            next += 16;
            ChainSecret s = new ChainSecret((long) LONGS.get(DRAWN, at), (long) LONGS.get(DRAWN, at + 8));
            LONGS.set(DRAWN, at, 0L);
            LONGS.set(DRAWN, at + 8, 0L);
            return s;
        } finally {
            DRAWN_LOCK.unlock();
        }
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
