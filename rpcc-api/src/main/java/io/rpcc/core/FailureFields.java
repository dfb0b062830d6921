package io.rpcc.core;

import io.rpcc.core.ChainingFunctionCompileException.Diagnostic;
import java.util.List;
import org.jspecify.annotations.Nullable;

/**
 * The structured facts of a chain failure, beyond its message, as the node that saw the failure
 * sent them: what a program may act on without parsing text. Each is absent ({@code null}, false or
 * empty) unless the failure's kind has it. The exception types offer them as typed accessors
 * ({@link SandboxViolationException#rule()}, {@link UnregisteredTypeException#typeId()},
 * {@link ChainingFunctionCompileException#diagnostics()}, {@link ChainException#isRetryable()}).
 *
 * @param transientCondition the failing node reported a condition of the moment (it was busy, or a
 *     limit was hit while it was loaded), so the same chain may succeed later
 * @param sandboxRule the sandbox rule a chaining function broke ({@link SandboxViolationException#rule()})
 * @param typeName the class name of a value whose type is not registered, where it is known
 * @param typeId the type id of a value that the receiving node has not registered, where it is known
 * @param diagnostics a chaining function's compile errors, in the compiler's order
 */
public record FailureFields(boolean transientCondition, @Nullable String sandboxRule, @Nullable String typeName,
                            @Nullable Integer typeId,
                            List<Diagnostic> diagnostics) {
    /** No structured facts. */
    public static final FailureFields NONE = new FailureFields(false, null, null, null, List.of());

    public FailureFields {
        diagnostics = diagnostics == null ? List.of() : List.copyOf(diagnostics);
    }
}
