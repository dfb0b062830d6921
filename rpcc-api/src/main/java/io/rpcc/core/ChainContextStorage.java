package io.rpcc.core;

import org.jspecify.annotations.Nullable;

/**
 * Where {@link ChainContext#current()} finds the context of the chain the calling thread works for;
 * a pushed context also puts its chain into the SLF4J MDC ({@link ChainMdc}).
 */
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
        // the log context follows: a no-op when the thread already carries this hop (nested pushes)
        ChainContext.Scope mdc = ChainMdc.put(ctx);
        // set, not remove, when there was none: the thread keeps its entry (holding null), so the next
        // hop on a pooled thread or an event loop does not allocate a new one
        return () -> {
            mdc.close();
            CURRENT.set(previous);
        };
    }
}
