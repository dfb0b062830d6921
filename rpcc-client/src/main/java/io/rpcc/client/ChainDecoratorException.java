package io.rpcc.client;

import org.jspecify.annotations.Nullable;

/**
 * A {@link ChainDecorator} threw (or returned nothing) before a call started: the chain did not
 * start, and nothing of it ran anywhere. The message names the decorator and the call; the cause is
 * what the decorator threw. The client stays usable: fix the decorator, or catch what it throws.
 */
public final class ChainDecoratorException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    private final String decorator;

    /**
     * An exception for {@code decorator} (its class name), which failed decorating the call to
     * {@code serviceFunction} at {@code server}.
     */
    public ChainDecoratorException(String decorator, String server, String serviceFunction,
                                   @Nullable Throwable cause) {
        super("client decorator " + decorator + " failed before the call to '" + serviceFunction + "' at '" + server
                + "' started, so the chain did not start: " + (cause == null ? "it returned no decoration"
                : cause.getClass().getName() + (cause.getMessage() == null ? "" : ": " + cause.getMessage()))
                + " (fix the decorator or have it catch its own failures)", cause);
        this.decorator = decorator;
    }

    /** The class name of the decorator that failed. */
    public String decorator() {
        return decorator;
    }
}
