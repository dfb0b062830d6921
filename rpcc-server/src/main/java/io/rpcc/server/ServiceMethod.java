package io.rpcc.server;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * Marks a method as a service function, for {@link RpccServer.Builder#services(Object)}. The method
 * takes zero or one parameter (the chain's params) and returns the result ({@code void} returns
 * {@code null}).
 *
 * <pre>{@code
 * class Inventory {
 *     @ServiceMethod("stock")
 *     int stock(String sku) { return db.stock(sku); }
 * }
 * RpccServer.builder("inventory").services(new Inventory()).build();
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
     * {@link RpccServer.Builder#idempotentService}); default: no, its outcomes are kept.
     */
    boolean idempotent() default false;
}
