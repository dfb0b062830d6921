package io.rpcc.core.internal.function;

/**
 * Thrown inside a sandboxed chaining function when it breaks a rule. An {@link Error}, and the
 * verifier refuses handlers that could catch it, so the function cannot swallow it.
 */
public final class SandboxViolation extends Error {
    private static final long serialVersionUID = 1L;

    private final String rule;

    /** A violation of {@code rule}; the message gets " (rule: <rule>)" appended. */
    public SandboxViolation(String rule, String message) {
        super(message + " (rule: " + rule + ")", null, false, false);
        this.rule = rule;
    }

    /** The rule's name. */
    public String rule() {
        return rule;
    }
}
