package io.rpcc.core;

/**
 * A chaining function broke a sandbox rule (paper section 3.6): it used something outside the
 * sandbox's allow-list (files, sockets, processes, environment, system properties, reflection,
 * class loading, threads, native code, {@code System.exit}, ...) or more CPU time, memory, elapsed
 * time or stack than the server allows ({@link SandboxLimits}). {@link #rule()} names the rule;
 * {@link #host()} and {@link #hop()} the hop.
 */
public class SandboxViolationException extends ChainException {
    private static final long serialVersionUID = 1L;

    /** An exception for {@code failure}. */
    public SandboxViolationException(ChainFailure failure) {
        super(failure);
    }

    /**
     * The rule that was broken: {@code reflection}, {@code class-loading}, {@code threads},
     * {@code files}, {@code network}, {@code processes}, {@code environment}, {@code exit},
     * {@code native-code}, {@code unsafe}, {@code not-allowed}, {@code cpu-time}, {@code memory},
     * {@code wall-time}, {@code stack-depth}, {@code finalizer}, {@code static-state}, {@code global-state},
     * {@code host-information}, {@code class-path-resources}, {@code rpcc-api}, {@code output-type},
     * {@code sandbox-capacity}, ...; {@code unknown} if the failing node did not say.
     * Carried as a structured field ({@link FailureFields#sandboxRule()}), never parsed from the message.
     */
    public String rule() {
        String rule = failure().fields().sandboxRule();
        return rule == null ? "unknown" : rule;
    }

    /** {@link ChainErrorCode#SANDBOX_VIOLATION}. */
    @Override
    public ChainErrorCode code() {
        return ChainErrorCode.SANDBOX_VIOLATION;
    }
}
