package io.rpcc.server.internal.atomic;

import org.jspecify.annotations.Nullable;

/** The atomic hop attempt running on each thread, bound by {@link LocalTransactions#run}. */
public final class TxContext {
    private static final ThreadLocal<@Nullable HopAttempt> CURRENT = new ThreadLocal<>();

    private TxContext() {
    }

    /** The attempt running on this thread, or null outside atomic hops. */
    public static @Nullable HopAttempt current() {
        return CURRENT.get();
    }

    static @Nullable HopAttempt bind(HopAttempt attempt) {
        HopAttempt previous = CURRENT.get();
        CURRENT.set(attempt);
        return previous;
    }

    static void restore(@Nullable HopAttempt previous) {
        if (previous == null) {
            CURRENT.remove();
        } else {
            CURRENT.set(previous);
        }
    }

    /** The attempt running on this thread, or an IllegalStateException saying that {@code what} needs an atomic chain. */
    static HopAttempt required(String what) {
        HopAttempt a = CURRENT.get();
        if (a == null) {
            throw new IllegalStateException(what + " outside an atomic chain: writes to TxVar and TxMap are refused"
                    + " there. Run the service function in an atomic chain, or set initial values with"
                    + " TxVar.of(name, initial) and TxMap.putCommitted(key, value) at setup");
        }
        return a;
    }
}
