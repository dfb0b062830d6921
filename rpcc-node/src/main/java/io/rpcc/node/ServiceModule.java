package io.rpcc.node;

import io.rpcc.core.TypeRegistry;
import io.rpcc.server.RpccServer;

/**
 * What a services jar gives the standalone node: a {@link java.util.ServiceLoader} provider of this
 * interface (listed in the jar's {@code META-INF/services/io.rpcc.node.ServiceModule}) registers
 * its service functions, and anything else it needs, on the node's server before it starts.
 *
 * <pre>{@code
 * public final class InventoryModule implements ServiceModule {
 *     public void registerTypes(TypeRegistry.Builder types) {
 *         types.register(Order.class);
 *     }
 *     public void configure(RpccServer.Builder server) {
 *         server.service("stock", sku -> stockOf((String) sku)).services(new Pricing());
 *     }
 * }
 * }</pre>
 *
 * <p>The node calls {@link #registerTypes} on every module first, then {@link #configure} on every
 * module, so that the types of several modules add up. The node has already applied its
 * configuration file to the builder; a module should not set the node's name, address, resolver or
 * types there.
 */
public interface ServiceModule {
    /** Registers the service functions (and interceptors, if any) on the node's server. */
    void configure(RpccServer.Builder server);

    /**
     * Registers the types the module's service functions receive or return (by default none);
     * register the same types on every node and client that exchange them.
     */
    default void registerTypes(TypeRegistry.Builder types) {
    }
}
