package io.rpcc.core.internal.wire;

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

    /** A failure of kind {@code code} that rpcc itself detected. */
    public HopFailure(ErrorCode code, String message) {
        this(code, code.exceptionName(), message, List.of(), null);
    }

    /** A failure of kind {@code code} caused by {@code cause}. */
    public HopFailure(ErrorCode code, String message, Throwable cause) {
        this(code, code.exceptionName(), message, List.of(), cause);
    }

    /** A failure with every field given. */
    public HopFailure(ErrorCode code, String exceptionName, String message, List<String> details, Throwable cause) {
        super(message, cause, false, false);
        this.code = code;
        this.exceptionName = exceptionName;
        this.details = List.copyOf(details);
    }

    /** The kind. */
    public ErrorCode code() {
        return code;
    }

    /** The name of the exception reported to the originator. */
    public String exceptionName() {
        return exceptionName;
    }

    /** Extra lines (diagnostics, stack trace). */
    public List<String> details() {
        return details;
    }
}
