package io.rpcc.core.internal.transport;

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

    /**
     * Counts one refusal of kind {@code refusal}. A refusal of a frame counted while a connection's
     * frame is handed to the node, on its event loop, also counts as one of that connection's bad
     * frames, past a limit of which it is closed.
     */
    public void count(Refusal refusal) {
        counters[refusal.ordinal()].increment();
        BadFrames.counted(refusal);
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
