package io.rpcc.core;

import io.rpcc.core.internal.chain.CurrentContext;

/**
 * What a service or chaining function can know about the chain it runs in, and the services rpcc
 * offers it (today, the {@linkplain #console() virtual console}).
 *
 * <pre>{@code
 * server.service("stock", params -> {
 *     ChainContext ctx = ChainContext.current();
 *     ctx.console().println("stock lookup at hop " + ctx.hop());
 *     return lookup(params);
 * });
 * }</pre>
 */
public interface ChainContext {

    /**
     * The context of the chain that the current thread works for.
     *
     * @throws IllegalStateException if the thread is not running a service or chaining function
     */
    static ChainContext current() {
        return CurrentContext.get();
    }

    /** The chain's id: the originator's name and a number, e.g. {@code "client-1#42"}. */
    String chainId();

    /** The name of the node that started the chain. */
    String originator();

    /** The index of this hop, starting at 1. */
    int hop();

    /** The name of the node running this code. */
    String node();

    /** The virtual console. */
    VirtualConsole console();
}
