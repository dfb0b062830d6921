package io.rpcc.core;

import org.jspecify.annotations.Nullable;

/**
 * Server code that a chain calls: a remote procedure registered under a name on a server.
 *
 * <p>Service functions run on a worker thread (a virtual thread by default), never on a Netty event
 * loop, so they may block. Inside one, {@link ChainContext#current()} gives the chain's context,
 * for example its {@linkplain ChainContext#console() virtual console}.
 *
 * <pre>{@code
 * RpccServer.builder("inventory")
 *     .service("stock", params -> stockOf((String) params))
 *     .build();
 * }</pre>
 *
 * <p>Parameters and results travel with Kryo: their classes must be registered on every node with
 * {@link TypeRegistry}, unless they are JDK types that rpcc registers itself.
 */
@FunctionalInterface
public interface ServiceFunction {
    /**
     * Runs the service function.
     *
     * @param params the parameters that the previous chaining function (or the client) chose
     * @return the result, passed to the hop's chaining function (may be {@code null})
     * @throws Exception any failure; it ends the chain with a {@link ServiceFunctionException} at
     *     the originator
     */
    @Nullable Object apply(@Nullable Object params) throws Exception;
}
