package io.rpcc.core.runtime;

import io.rpcc.core.ChainException;
import io.rpcc.core.ChainingFunction;
import io.rpcc.core.ChainingFunctionCompileException;
import io.rpcc.core.ChainingFunctionException;
import io.rpcc.core.ChainingFunctionSource;
import io.rpcc.core.SandboxLimits;
import io.rpcc.core.SandboxViolationException;
import io.rpcc.core.TypeRegistry;
import io.rpcc.core.internal.function.FunctionRuntime;
import io.rpcc.core.internal.wire.HopFailure;
import java.util.List;
import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * Runs a server's compile and sandbox check of a Java chaining function outside a node: the same
 * compiler, class path rule, sandbox verifier and static initialization a node runs before the
 * function's first hop, so a build can refuse what a server would (the {@code rpcc-maven-plugin}
 * does this at {@code mvn package}). It runs the compiler of the function's language, a plug-in that
 * must be on the class path as on the servers: {@code rpcc-function-java} for Java (a dependency of
 * {@code rpcc-server} and of the Maven plugin), {@code rpcc-js} for JavaScript; without it the check
 * fails with a {@link ChainingFunctionCompileException} naming the artifact to add.
 *
 * <pre>{@code
 * FunctionCheck check = FunctionCheck.builder()
 *     .classLoader(applicationLoader)          // what the servers' function class loader sees
 *     .types(TypeRegistry.of(Order.class))     // the types the servers register
 *     .build();
 * check.check(ChainingFunctionSource.of(Checkout.class));   // throws what the chain's originator would get
 * }</pre>
 *
 * <p>A check fails with the exception the originator of a chain would receive:
 * {@link ChainingFunctionCompileException} (its {@linkplain ChainingFunctionCompileException#diagnostics()
 * diagnostics} give line and column) or {@link SandboxViolationException} (its message names the
 * class, the method and, from the class file's line numbers, {@code (line N)}), with
 * {@link ChainException#host()} {@value #HOST}.
 */
public final class FunctionCheck {
    /** The host named by the exceptions of a check. */
    public static final String HOST = "function-check";

    private final ClassLoader classLoader;
    private final TypeRegistry types;
    private final @Nullable SandboxLimits sandbox;
    private final int maxSourceChars;

    private FunctionCheck(Builder b) {
        this.classLoader = b.classLoader;
        this.types = b.types;
        this.sandbox = b.sandbox;
        this.maxSourceChars = b.maxSourceChars;
    }

    /** A new builder: rpcc's class loader, no registered types, the default sandbox. */
    public static Builder builder() {
        return new Builder();
    }

    /**
     * Compiles, verifies and initializes {@code source} as a node would.
     *
     * @throws ChainingFunctionCompileException if it does not compile (or is not a chaining function)
     * @throws SandboxViolationException if the sandbox refuses it
     * @throws ChainException for any other failure a node would report, such as a static
     *     initializer that throws ({@link ChainingFunctionException})
     */
    public void check(ChainingFunctionSource source) {
        Objects.requireNonNull(source, "source");
        if (source.language() == null || source.isReference()) {
            throw new IllegalArgumentException("only a function with its source can be checked, not " + source);
        }
        FunctionRuntime runtime = FunctionRuntime.forNode(types, sandbox, 1, maxSourceChars, 1, classLoader).open();
        try {
            runtime.load(source);
        } catch (HopFailure f) {
            throw f.located(HOST, 0, List.of()).toException();
        } finally {
            runtime.close();
        }
    }

    /** Builds a {@link FunctionCheck}. */
    public static final class Builder {
        private ClassLoader classLoader = ChainingFunction.class.getClassLoader();
        private TypeRegistry types = TypeRegistry.empty();
        private @Nullable SandboxLimits sandbox = SandboxLimits.DEFAULT;
        private int maxSourceChars = FunctionRuntime.DEFAULT_MAX_SOURCE_CHARS;

        private Builder() {
        }

        /**
         * Refuses sources longer than {@code chars}, as a node built with
         * {@link NodeBuilder#maxFunctionSourceChars(int)} does (default: a node's, {@value FunctionRuntime#DEFAULT_MAX_SOURCE_CHARS}).
         */
        public Builder maxSourceChars(int chars) {
            if (chars < 1) {
                throw new IllegalArgumentException("maxSourceChars must be positive, got " + chars);
            }
            this.maxSourceChars = chars;
            return this;
        }

        /** Compiles against and loads through {@code loader}, as {@link NodeBuilder#functionClassLoader(ClassLoader)}. */
        public Builder classLoader(ClassLoader loader) {
            this.classLoader = Objects.requireNonNull(loader, "loader");
            return this;
        }

        /** The application types the servers register (the sandbox lets functions use them). */
        public Builder types(TypeRegistry types) {
            this.types = Objects.requireNonNull(types, "types");
            return this;
        }

        /** Checks against these sandbox limits (default {@link SandboxLimits#DEFAULT}). */
        public Builder sandbox(SandboxLimits limits) {
            this.sandbox = Objects.requireNonNull(limits, "limits");
            return this;
        }

        /** Compiles only, as a node built with {@link NodeBuilder#withoutSandbox()} would. */
        public Builder withoutSandbox() {
            this.sandbox = null;
            return this;
        }

        /** The check. */
        public FunctionCheck build() {
            return new FunctionCheck(this);
        }
    }
}
