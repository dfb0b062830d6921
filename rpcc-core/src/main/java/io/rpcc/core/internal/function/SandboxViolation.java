package io.rpcc.core.internal.function;

import io.rpcc.core.internal.wire.HopFailure;

/**
 * Thrown inside a sandboxed chaining function when it breaks a rule. An {@link Error}, and the
 * verifier refuses handlers that could catch it, so the function cannot swallow it.
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

    /** This violation as a hop failure carrying the rule as a field. */
    public HopFailure toFailure() {
        return HopFailure.sandboxViolation(rule, reason, false, null);
    }
}
