package io.rpcc.core.spi;

import io.rpcc.core.FunctionLanguage;

/**
 * Adds a chaining-function language to every node that has the plug-in on its class path: found
 * with {@link java.util.ServiceLoader} (a {@code META-INF/services/io.rpcc.core.spi.FunctionCompilerProvider}
 * file naming the implementation). {@code rpcc-function-java} provides Java this way, {@code rpcc-js}
 * JavaScript.
 */
public interface FunctionCompilerProvider {
    /** The language. */
    FunctionLanguage language();

    /** A compiler for one node, set up as {@code settings} say (sandbox limits, types, class loader). */
    FunctionCompiler create(CompilerSettings settings);
}
