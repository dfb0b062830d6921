package io.rpcc.core;

/**
 * Where a node runs the Java chaining functions of a chain (JavaScript functions always run in the
 * node's GraalJS sandbox, which can cancel them at any point).
 *
 * <ul>
 *   <li>{@link #IN_PROCESS}: in the node's JVM, in the bytecode sandbox (verified, instrumented and
 *       run under the {@link SandboxLimits} budget). The fastest; but code that runs inside one JDK
 *       call is out of the budget's reach, so a hostile function can hold a core or allocate past the
 *       budget there until the JDK call returns.</li>
 *   <li>{@link #PROCESS}: in a function-runner process of the node's pool (a small JVM with its own
 *       heap, CPU and memory limits from the operating system), in the same bytecode sandbox. A
 *       runner that overruns its wall time or heap is killed and replaced; nothing it does can stall
 *       the node's JVM or another chain's function. Costs a round trip to the runner and the
 *       (de)serialization of the function's state, result and next hop.</li>
 *   <li>{@link #BY_TRUST}: per chain, from who started it: at the {@link IsolationLevel} the server's
 *       chain policy chose for the hop ({@link ChainContext#isolation()}): {@link IsolationLevel#IN_PROCESS}
 *       runs {@link #IN_PROCESS}, {@link IsolationLevel#ISOLATED} in a {@link #PROCESS} runner. The
 *       default policy chooses in-process for a chain whose originator is verified (its signature,
 *       between nodes that mutual TLS authenticates) and isolated for any other, so in plaintext
 *       every chain's Java functions run in runners.</li>
 * </ul>
 */
public enum FunctionIsolation {
    /** In the node's JVM, in the bytecode sandbox. */
    IN_PROCESS,
    /** In a function-runner process of the node's pool. */
    PROCESS,
    /** As the server's chain policy chose for the hop: in the node's JVM or in a runner process. */
    BY_TRUST;

    /**
     * Where a hop's Java functions run when the server's chain policy chose {@code level} for it:
     * never {@link #BY_TRUST}.
     */
    public FunctionIsolation forLevel(IsolationLevel level) {
        if (this != BY_TRUST) {
            return this;
        }
        return level == IsolationLevel.IN_PROCESS ? IN_PROCESS : PROCESS;
    }

    /** The isolation named {@code text}: {@code in-process}, {@code process} or {@code by-trust} (any case). */
    public static FunctionIsolation parse(String text) {
        return switch (text.trim().toLowerCase(java.util.Locale.ROOT)) {
            case "in-process", "in_process" -> IN_PROCESS;
            case "process" -> PROCESS;
            case "by-trust", "by_trust" -> BY_TRUST;
            default -> throw new IllegalArgumentException("unknown function isolation '" + text
                    + "': use in-process, process or by-trust");
        };
    }
}
