package io.rpcc.core;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * Marks an application type (a parameter, result, state or reply value) for registration with a
 * {@link TypeRegistry}: {@link TypeRegistry.Builder#registerAnnotated(Class)} registers it with
 * {@link #id()} if one is given, else with its name-derived id; the Spring Boot starter registers
 * every annotated class in the packages it scans.
 *
 * <pre>{@code
 * @RpccType
 * public record Order(String id, long cents) {}
 *
 * @RpccType(id = 120)          // an id that survives renames
 * public record Quote(String sku, long cents) {}
 * }</pre>
 */
@Documented
@Retention(RetentionPolicy.RUNTIME)
@Target(ElementType.TYPE)
public @interface RpccType {
    /** An explicit wire id between {@value TypeRegistry#MIN_EXPLICIT_ID} and {@value TypeRegistry#MAX_EXPLICIT_ID}, or 0 for the name-derived id. */
    int id() default 0;
}
