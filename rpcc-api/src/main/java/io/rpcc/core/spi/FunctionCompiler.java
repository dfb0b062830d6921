package io.rpcc.core.spi;

import io.rpcc.core.ChainingFunctionSource;
import io.rpcc.core.FunctionLanguage;

/**
 * Turns the source of a chaining function in one language into a {@link CompiledFunction}: one per
 * node and language, made by its {@link FunctionCompilerProvider}. The node's runtime caches what it
 * produces (by content id), bounds the sources it is given and how many compile at once, and runs
 * {@link #compile} on a small pool of threads shared by the JVM's nodes.
 */
public interface FunctionCompiler {
    /** The language this compiler handles. */
    FunctionLanguage language();

    /**
     * Compiles {@code source}.
     *
     * @throws FunctionFailure with {@link io.rpcc.core.ChainErrorCode#CHAINING_FUNCTION_COMPILE} and the
     *     diagnostics, or {@link io.rpcc.core.ChainErrorCode#SANDBOX_VIOLATION} if the sandbox refuses it
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

    /**
     * The node started: take what compiling and running functions needs (threads shared by the JVM's
     * nodes, say). Each call is balanced by one {@link #close()}.
     */
    default void open() {
    }

    /** The node closed: give up what {@link #open()} took. */
    default void close() {
    }

    /**
     * This compiler's invocations abandoned at their wall-time limit whose threads still run (for
     * the node's statistics); 0 for a compiler that abandons none.
     */
    default int abandonedThreads() {
        return 0;
    }
}
