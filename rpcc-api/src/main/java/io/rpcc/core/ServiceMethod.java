package io.rpcc.core;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * Marks a method as a service function. A server registers the marked methods of an object with
 * {@code RpccServer.Builder.services(Object)}: those of its class and of the interfaces it
 * implements. On an interface, the annotation makes the interface a <em>service interface</em>: the
 * server that implements it hosts its methods, and a {@link SequentialChain} calls them with typed
 * calls ({@code hops.at("pricing", Pricing.class).quote(order)}).
 *
 * <p>Parameters: a method with no parameter gets {@code null} params; with one, the chain's params;
 * with several, the params are a {@code List} of the arguments in order (a caller passes
 * {@code List.of(a, b)}, a service interface's typed call packs them so). The method returns the
 * result ({@code void} returns {@code null}).
 *
 * <pre>{@code
 * public interface Inventory {
 *     @ServiceMethod("stock")
 *     int stock(String sku);
 *     @ServiceMethod
 *     String reserve(String sku, int quantity);   // params: List.of(sku, quantity)
 * }
 * class InventoryService implements Inventory { ... }
 * RpccServer.builder("inventory").services(new InventoryService()).build();
 * }</pre>
 */
@Documented
@Retention(RetentionPolicy.RUNTIME)
@Target(ElementType.METHOD)
public @interface ServiceMethod {
    /** The service function's name; defaults to the method's name. */
    String value() default "";

    /**
     * Whether the method is idempotent: running it again with the same params does no harm, so the
     * server does not keep its outcomes for chains sent again (see
     * {@code RpccServer.Builder.idempotentService}); default: no, its outcomes are kept.
     */
    boolean idempotent() default false;
}
