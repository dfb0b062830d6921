package io.rpcc.core.internal.function;

import io.rpcc.core.ChainingFunctionSource;
import io.rpcc.core.FunctionLanguage;

/**
 * Turns the source of a chaining function in one language into a {@link CompiledFunction}. One
 * implementation per {@link FunctionLanguage}; {@link FunctionRuntime} caches what they produce.
 */
public interface FunctionCompiler {
    /** The language this compiler handles. */
    FunctionLanguage language();

    /**
     * Compiles {@code source}.
     *
     * @throws io.rpcc.core.internal.wire.HopFailure with
     *     {@link io.rpcc.core.internal.wire.ErrorCode#CHAINING_FUNCTION_COMPILE} and the diagnostics
     */
    CompiledFunction compile(ChainingFunctionSource source);

    /**
     * Whether this compiler's functions run best on a platform thread: a sandboxed Java function
     * does (its budget reads the thread's CPU time and allocation, which the JVM measures only for
     * platform threads); from a virtual thread it moves to one and back, two thread hand-offs.
     */
    default boolean prefersPlatformThread() {
        return false;
    }

    /**
     * The largest source this compiler accepts, in chars; the node's own limit
     * ({@code NodeBuilder.maxFunctionSourceChars}) applies too, whichever is smaller.
     */
    default int maxSourceChars() {
        return Integer.MAX_VALUE;
    }
}
