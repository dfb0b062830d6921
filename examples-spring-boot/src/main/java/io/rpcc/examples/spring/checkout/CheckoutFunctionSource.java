package io.rpcc.examples.spring.checkout;

import io.rpcc.core.ChainingFunctionSource;

/**
 * TEMPORARY, until {@code ChainingFunctionSource.of(Class)} and the rpcc-maven-plugin land on main: the
 * source of a chaining function class, read from the resource {@code META-INF/rpcc/functions/<package
 * path>/<Name>.java} where this module's build copies it (as the plugin's check-functions goal will).
 */
final class CheckoutFunctionSource {
    private CheckoutFunctionSource() {
    }

    static ChainingFunctionSource of(Class<?> function) {
        return ChainingFunctionSource.javaResource(function,
                "/META-INF/rpcc/functions/" + function.getName().replace('.', '/') + ".java");
    }
}
