package io.rpcc.core.internal.function;

import io.rpcc.core.FunctionLanguage;
import io.rpcc.core.SandboxLimits;
import io.rpcc.core.TypeRegistry;

/**
 * Adds a chaining-function language to every node, found with {@link java.util.ServiceLoader}
 * (module {@code rpcc-js} provides JavaScript). Internal SPI.
 */
public interface FunctionCompilerProvider {
    /** The language. */
    FunctionLanguage language();

    /**
     * A compiler for a node with {@code types} whose functions run within {@code limits} ({@code null}:
     * without a sandbox).
     */
    FunctionCompiler create(SandboxLimits limits, TypeRegistry types);
}
