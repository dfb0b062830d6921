package io.rpcc.core.internal.chain;

import io.rpcc.core.ChainContext;

/** Holds the {@link ChainContext} of the chain that the current thread works for. */
public final class CurrentContext {
    private static final ThreadLocal<ChainContext> CURRENT = new ThreadLocal<>();

    private CurrentContext() {
    }

    /** The current context; throws if the thread works for no chain. */
    public static ChainContext get() {
        ChainContext ctx = CURRENT.get();
        if (ctx == null) {
            throw new IllegalStateException("ChainContext.current() called outside a service or chaining function");
        }
        return ctx;
    }

    /** The current context, or {@code null}. */
    public static ChainContext peek() {
        return CURRENT.get();
    }

    /** Makes {@code ctx} current until the returned scope is closed (which restores the previous one). */
    public static Scope enter(ChainContext ctx) {
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

    /** Restores the previous context when closed. */
    @FunctionalInterface
    public interface Scope extends AutoCloseable {
        @Override
        void close();
    }
}
