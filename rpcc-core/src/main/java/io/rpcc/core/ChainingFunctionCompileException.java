package io.rpcc.core;

import java.util.ArrayList;
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
        /** The form used in {@link ChainFailure#details()}: {@code line:column: message}. */
        @Override
        public String toString() {
            return line + ":" + column + ": " + message;
        }

        static Diagnostic parse(String detail) {
            String[] parts = detail.split(":", 3);
            try {
                return new Diagnostic(Long.parseLong(parts[0]), Long.parseLong(parts[1]), parts[2].strip());
            } catch (RuntimeException e) {
                return new Diagnostic(0, 0, detail);
            }
        }
    }

    /** An exception for {@code failure}. */
    public ChainingFunctionCompileException(ChainFailure failure) {
        super(failure);
    }

    /** The compiler's error messages. */
    public List<Diagnostic> diagnostics() {
        List<Diagnostic> out = new ArrayList<>();
        for (String d : failure().details()) {
            out.add(Diagnostic.parse(d));
        }
        return out;
    }
}
