package io.rpcc.core.spi;

import io.rpcc.core.ChainErrorCode;
import io.rpcc.core.ChainingFunctionCompileException.Diagnostic;
import io.rpcc.core.FailureFields;
import java.util.List;
import org.jspecify.annotations.Nullable;

/**
 * A failure a function-language plug-in raises while it compiles or runs a chaining function: the
 * node's runtime turns it into the failure of the hop, which reaches the chain's originator as the
 * public exception of its {@link #code()} ({@link io.rpcc.core.ChainingFunctionCompileException},
 * {@link io.rpcc.core.ChainingFunctionException}, {@link io.rpcc.core.SandboxViolationException}).
 * Created through its factories, which fill the {@linkplain #fields() structured fields} each kind
 * carries.
 */
public final class FunctionFailure extends RuntimeException {
    private static final long serialVersionUID = 1L;

    private final ChainErrorCode code;
    private final @Nullable String exceptionName;
    private final transient List<String> details;
    private final transient FailureFields fields;

    private FunctionFailure(ChainErrorCode code, @Nullable String exceptionName, String message, List<String> details,
                            FailureFields fields, @Nullable Throwable cause) {
        super(message, cause, false, false);
        this.code = code;
        this.exceptionName = exceptionName;
        this.details = List.copyOf(details);
        this.fields = fields;
    }

    /** The function does not compile (or cannot be prepared): {@link ChainErrorCode#CHAINING_FUNCTION_COMPILE}. */
    public static FunctionFailure compile(String message) {
        return new FunctionFailure(ChainErrorCode.CHAINING_FUNCTION_COMPILE, null, message, List.of(), FailureFields.NONE,
                null);
    }

    /** As {@link #compile(String)}, caused by {@code cause}. */
    public static FunctionFailure compile(String message, Throwable cause) {
        return new FunctionFailure(ChainErrorCode.CHAINING_FUNCTION_COMPILE, null, message, List.of(), FailureFields.NONE,
                cause);
    }

    /** The function does not compile, with its compiler's {@code diagnostics} (they travel as fields). */
    public static FunctionFailure compileErrors(String message, List<Diagnostic> diagnostics) {
        return new FunctionFailure(ChainErrorCode.CHAINING_FUNCTION_COMPILE, null, message, List.of(),
                new FailureFields(false, null, null, null, diagnostics), null);
    }

    /**
     * A {@link io.rpcc.core.SequentialChain}'s replay made another call than the one recorded at a
     * position: {@link ChainErrorCode#REPLAY_DIVERGED}.
     */
    public static FunctionFailure replayDiverged(String message) {
        return new FunctionFailure(ChainErrorCode.REPLAY_DIVERGED, null, message, List.of(), FailureFields.NONE, null);
    }

    /**
     * The function threw: {@link ChainErrorCode#CHAINING_FUNCTION_FAILED} with the name of what it
     * threw, its message and stack trace (see {@link FunctionText}); {@code cause} only if it is
     * rpcc's own object (never one of the function's).
     */
    public static FunctionFailure failed(String exceptionName, @Nullable String message, List<String> stackTrace,
                                         @Nullable Throwable cause) {
        return new FunctionFailure(ChainErrorCode.CHAINING_FUNCTION_FAILED, exceptionName, message, stackTrace,
                FailureFields.NONE, cause);
    }

    /**
     * The function broke sandbox rule {@code rule}: {@link ChainErrorCode#SANDBOX_VIOLATION}, the
     * rule travels as a field and the message gets {@code " (rule: <rule>)"} appended;
     * {@code transientCondition} if the node refused for a reason of the moment (a later try may pass).
     */
    public static FunctionFailure sandboxViolation(String rule, String message, boolean transientCondition) {
        return new FunctionFailure(ChainErrorCode.SANDBOX_VIOLATION, null, message + " (rule: " + rule + ")", List.of(),
                new FailureFields(transientCondition, rule, null, null, List.of()), null);
    }

    /**
     * This failure marked as a condition of the moment (a limit hit while a loaded node compiled or
     * parsed): the runtime does not remember it, so the function may load on a later try, and the
     * originator sees it as retryable.
     */
    public FunctionFailure asTransient() {
        return new FunctionFailure(code, exceptionName, getMessage(), details, new FailureFields(true, fields.sandboxRule(),
                fields.typeName(), fields.typeId(), fields.diagnostics()), getCause());
    }

    /** The kind. */
    public ChainErrorCode code() {
        return code;
    }

    /** The name of the exception the originator sees, or {@code null} for rpcc's own exception of the {@link #code()}. */
    public @Nullable String exceptionName() {
        return exceptionName;
    }

    /** Extra lines (the function's stack trace). */
    public List<String> details() {
        return details;
    }

    /** The structured facts: sandbox rule, compile diagnostics, whether transient. */
    public FailureFields fields() {
        return fields;
    }
}
