package io.rpcc.core.internal.wire;

import io.rpcc.core.ChainingFunctionCompileException.Diagnostic;
import io.rpcc.core.FailureFields;
import java.util.List;

/**
 * A failure detected while running or forwarding a hop, before the hop's host, index and path are
 * attached to make a {@link io.rpcc.core.ChainFailure}.
 */
public final class HopFailure extends RuntimeException {
    private static final long serialVersionUID = 1L;

    private final ErrorCode code;
    private final String exceptionName;
    private final transient List<String> details;
    private final transient FailureFields fields;

    /** A failure of kind {@code code} that rpcc itself detected. */
    public HopFailure(ErrorCode code, String message) {
        this(code, code.exceptionName(), message, List.of(), FailureFields.NONE, null);
    }

    /** A failure of kind {@code code} caused by {@code cause}. */
    public HopFailure(ErrorCode code, String message, Throwable cause) {
        this(code, code.exceptionName(), message, List.of(), FailureFields.NONE, cause);
    }

    /** A failure with every field but the structured ones given. */
    public HopFailure(ErrorCode code, String exceptionName, String message, List<String> details, Throwable cause) {
        this(code, exceptionName, message, details, FailureFields.NONE, cause);
    }

    /** A failure with every field given. */
    public HopFailure(ErrorCode code, String exceptionName, String message, List<String> details, FailureFields fields,
                      Throwable cause) {
        super(message, cause, false, false);
        this.code = code;
        this.exceptionName = exceptionName;
        this.details = List.copyOf(details);
        this.fields = fields == null ? FailureFields.NONE : fields;
    }

    /**
     * A chaining function broke sandbox rule {@code rule}: the rule travels as a field, and the
     * message gets {@code " (rule: <rule>)"} appended for people; {@code transientCondition} if the node
     * refused for a reason of the moment (a later try may pass).
     */
    public static HopFailure sandboxViolation(String rule, String message, boolean transientCondition, Throwable cause) {
        return new HopFailure(ErrorCode.SANDBOX_VIOLATION, ErrorCode.SANDBOX_VIOLATION.exceptionName(),
                message + " (rule: " + rule + ")", List.of(),
                new FailureFields(transientCondition, rule, null, null, List.of()), cause);
    }

    /** A chaining function did not compile: {@code diagnostics} travel as fields. */
    public static HopFailure compileErrors(String message, List<Diagnostic> diagnostics) {
        return new HopFailure(ErrorCode.CHAINING_FUNCTION_COMPILE, ErrorCode.CHAINING_FUNCTION_COMPILE.exceptionName(),
                message, List.of(), new FailureFields(false, null, null, null, diagnostics), null);
    }

    /** This failure marked as a condition of the moment, with {@code cause}. */
    public HopFailure asTransient(Throwable cause) {
        return new HopFailure(code, exceptionName, getMessage(), details, new FailureFields(true, fields.sandboxRule(),
                fields.typeName(), fields.typeId(), fields.diagnostics()), cause);
    }

    /** The kind. */
    public ErrorCode code() {
        return code;
    }

    /** The name of the exception reported to the originator. */
    public String exceptionName() {
        return exceptionName;
    }

    /** Extra lines (stack trace). */
    public List<String> details() {
        return details;
    }

    /** The structured facts: sandbox rule, type id or name, compile diagnostics, whether transient. */
    public FailureFields fields() {
        return fields;
    }
}
