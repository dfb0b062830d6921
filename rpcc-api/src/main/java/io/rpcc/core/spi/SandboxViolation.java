package io.rpcc.core.spi;

/**
 * Thrown inside a sandboxed chaining function when it breaks a rule. An {@link Error}, so that the
 * function's own handlers do not catch it (a sandbox should also refuse handlers that could); the
 * plug-in turns it into a {@link FunctionFailure} with {@link #toFailure()} when the invocation ends.
 */
public final class SandboxViolation extends Error {
    private static final long serialVersionUID = 1L;

    private final String rule;
    private final String reason;

    /** A violation of {@code rule}; the message gets {@code " (rule: <rule>)"} appended. */
    public SandboxViolation(String rule, String message) {
        super(message + " (rule: " + rule + ")", null, false, false);
        this.rule = rule;
        this.reason = message;
    }

    /** The rule's name. */
    public String rule() {
        return rule;
    }

    /** What happened, without the rule. */
    public String reason() {
        return reason;
    }

    /** This violation as a failure carrying the rule as a field. */
    public FunctionFailure toFailure() {
        return FunctionFailure.sandboxViolation(rule, reason, false);
    }
}
