package io.rpcc.core.internal.wire;

import io.rpcc.core.ChainErrorCode;
import io.rpcc.core.ChainFailure;
import io.rpcc.core.ChainingFunctionCompileException.Diagnostic;
import io.rpcc.core.ConsoleLine;
import io.rpcc.core.FailureFields;
import io.rpcc.core.HopTiming;
import io.rpcc.core.spi.EngineSpi;
import java.util.List;

/**
 * A failure detected while running or forwarding a hop, before the hop's host, index and path are
 * attached ({@link #located}) to make a {@link LocatedFailure}: its code and the public
 * {@link ChainFailure}.
 */
@EngineSpi
public final class HopFailure extends RuntimeException {
    private static final long serialVersionUID = 1L;

    private final ChainErrorCode code;
    private final String exceptionName;
    private final transient List<String> details;
    private final transient FailureFields fields;

    /** A failure of kind {@code code} that rpcc itself detected. */
    public HopFailure(ChainErrorCode code, String message) {
        this(code, ChainErrors.exceptionName(code), message, List.of(), FailureFields.NONE, null);
    }

    /** A failure of kind {@code code} caused by {@code cause}. */
    public HopFailure(ChainErrorCode code, String message, Throwable cause) {
        this(code, ChainErrors.exceptionName(code), message, List.of(), FailureFields.NONE, cause);
    }

    /** A failure with every field but the structured ones given. */
    public HopFailure(ChainErrorCode code, String exceptionName, String message, List<String> details, Throwable cause) {
        this(code, exceptionName, message, details, FailureFields.NONE, cause);
    }

    /** A failure with every field given. */
    public HopFailure(ChainErrorCode code, String exceptionName, String message, List<String> details, FailureFields fields,
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
        return new HopFailure(ChainErrorCode.SANDBOX_VIOLATION,
                ChainErrors.exceptionName(ChainErrorCode.SANDBOX_VIOLATION), message + " (rule: " + rule + ")", List.of(),
                new FailureFields(transientCondition, rule, null, null, List.of()), cause);
    }

    /** A chaining function did not compile: {@code diagnostics} travel as fields. */
    public static HopFailure compileErrors(String message, List<Diagnostic> diagnostics) {
        return new HopFailure(ChainErrorCode.CHAINING_FUNCTION_COMPILE,
                ChainErrors.exceptionName(ChainErrorCode.CHAINING_FUNCTION_COMPILE), message, List.of(),
                new FailureFields(false, null, null, null, diagnostics), null);
    }

    /** This failure marked as a condition of the moment, with {@code cause}. */
    public HopFailure asTransient(Throwable cause) {
        return new HopFailure(code, exceptionName, getMessage(), details, new FailureFields(true, fields.sandboxRule(),
                fields.typeName(), fields.typeId(), fields.diagnostics()), cause);
    }

    /**
     * This failure located: it happened at {@code host} on hop {@code hop}, {@code path} being the
     * servers the chain traversed up to and including {@code host}; {@code console} and
     * {@code timings} are the chain's up to the failure.
     */
    public LocatedFailure located(String host, int hop, List<String> path, List<ConsoleLine> console,
                                  List<HopTiming> timings) {
        return new LocatedFailure(code, new ChainFailure(exceptionName, getMessage(), host, hop, path, details, console,
                timings, fields));
    }

    /** As {@link #located(String, int, List, List, List)}, found where no console or timings were kept. */
    public LocatedFailure located(String host, int hop, List<String> path) {
        return located(host, hop, path, List.of(), List.of());
    }

    /** The kind. */
    public ChainErrorCode code() {
        return code;
    }

    /** Whether the peer could not be reached at all ({@link ChainErrors#unreachable}). */
    public boolean unreachable() {
        return ChainErrors.unreachable(code);
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
