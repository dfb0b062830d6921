package io.rpcc.core;

import java.util.List;

/**
 * A chaining function's source did not compile at the server that had to run it. The compiler's
 * diagnostics are in {@link #diagnostics()}.
 */
public class ChainingFunctionCompileException extends ChainException {
    private static final long serialVersionUID = 1L;

    /**
     * One compiler message.
     *
     * @param line the line, starting at 1 (0 if unknown)
     * @param column the column, starting at 1 (0 if unknown)
     * @param message the compiler's message
     */
    public record Diagnostic(long line, long column, String message) {
        /** {@code line:column: message}, as in the exception's message. */
        @Override
        public String toString() {
            return line + ":" + column + ": " + message;
        }
    }

    /** An exception for {@code failure}. */
    public ChainingFunctionCompileException(ChainFailure failure) {
        super(failure);
    }

    /**
     * The compiler's error messages, in its order, carried as structured fields
     * ({@link FailureFields#diagnostics()}); empty if the source failed for another reason (a source
     * over the node's limit, a node without a compiler).
     */
    public List<Diagnostic> diagnostics() {
        return failure().fields().diagnostics();
    }

    /** {@link ChainErrorCode#CHAINING_FUNCTION_COMPILE}. */
    @Override
    public ChainErrorCode code() {
        return ChainErrorCode.CHAINING_FUNCTION_COMPILE;
    }
}
