package io.rpcc.core.spi;

import io.rpcc.core.SandboxLimits;
import io.rpcc.core.TypeRegistry;
import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * What a node tells a {@link FunctionCompilerProvider} about the compiler it wants.
 *
 * @param sandbox the limits its functions run within, or {@code null}: no sandbox
 *     ({@code NodeBuilder.withoutSandbox()})
 * @param types the node's registered types (a sandbox lets functions use them)
 * @param classLoader the node's function class loader ({@code NodeBuilder.functionClassLoader}):
 *     what functions compile against and load through
 */
public record CompilerSettings(@Nullable SandboxLimits sandbox, TypeRegistry types, ClassLoader classLoader) {
    /** Checks the arguments. */
    public CompilerSettings {
        Objects.requireNonNull(types, "types");
        Objects.requireNonNull(classLoader, "classLoader");
    }
}
