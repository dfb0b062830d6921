package io.rpcc.core.internal.transport;

import io.netty.channel.Channel;
import io.rpcc.core.Refusal;
import io.rpcc.core.spi.EngineSpi;
import java.util.Collections;
import java.util.EnumMap;
import java.util.Map;
import java.util.concurrent.atomic.LongAdder;

/** A node's counters of {@link Refusal}s; thread-safe, cheap to bump from event loops. */
@EngineSpi
public final class Refusals {
    private final LongAdder[] counters = new LongAdder[Refusal.values().length];

    /** Counters at zero. */
    public Refusals() {
        for (int i = 0; i < counters.length; i++) {
            counters[i] = new LongAdder();
        }
    }

    /** Counts one refusal of kind {@code refusal}. */
    public void count(Refusal refusal) {
        counters[refusal.ordinal()].increment();
    }

    /**
     * Counts one refusal of kind {@code refusal} of a frame read from connection {@code from}
     * ({@code null}: none): if it is one of the kinds a connection is allowed only so many of
     * (malformed, a class name, too deep, an invalid origin, forged, naming an unvouched address), it is also held against
     * {@code from}'s allowance, past which the connection is closed
     * ({@link Refusal#TOO_MANY_BAD_FRAMES}). Call it where the frame is refused, with the connection
     * it came on.
     */
    public void countFrame(Refusal refusal, Channel from) {
        count(refusal);
        againstConnection(refusal, from);
    }

    /**
     * Holds a refusal of kind {@code refusal}, already counted (by {@link #count}), against connection
     * {@code from} if it is a bad frame ({@link #countFrame}).
     */
    void againstConnection(Refusal refusal, Channel from) {
        BadFrames bad = BadFrames.isBadFrame(refusal) ? BadFrames.of(from) : null;
        if (bad != null) {
            bad.refused(refusal.name());
        }
    }

    /**
     * Whether connection {@code from} ran out of its allowance of refused frames: it is being closed,
     * and what it sent that still waits is better dropped than refused again.
     */
    public boolean cutOff(Channel from) {
        return from != null && BadFrames.cutOff(from);
    }

    /** How many refusals of kind {@code refusal} so far. */
    public long get(Refusal refusal) {
        return counters[refusal.ordinal()].sum();
    }

    /** Every kind with a non-zero count, in declaration order. */
    public Map<Refusal, Long> snapshot() {
        Map<Refusal, Long> out = new EnumMap<>(Refusal.class);
        for (Refusal r : Refusal.values()) {
            long n = counters[r.ordinal()].sum();
            if (n != 0) {
                out.put(r, n);
            }
        }
        return Collections.unmodifiableMap(out);
    }
}
