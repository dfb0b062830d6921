package io.rpcc.core;

import org.jspecify.annotations.Nullable;

/** Where {@link ChainContext#current()} finds the context of the chain the calling thread works for. */
final class ChainContextStorage {
    private static final ThreadLocal<ChainContext> CURRENT = new ThreadLocal<>();

    private ChainContextStorage() {
    }

    static @Nullable ChainContext get() {
        return CURRENT.get();
    }

    static ChainContext.Scope push(ChainContext ctx) {
        ChainContext previous = CURRENT.get();
        CURRENT.set(ctx);
        return () -> {
            if (previous == null) {
                CURRENT.remove();
            } else {
                CURRENT.set(previous);
            }
        };
    }
}
