package io.rpcc.core.spi;

/**
 * Thrown on the thread of a sandboxed invocation that was abandoned at its wall-time limit (see
 * {@link CompiledFunction#invoke(io.rpcc.core.ChainState, Object, java.util.function.Consumer)}) when
 * it finally returns: its hop has already failed with rule {@code wall-time}, so whatever the
 * function returned or threw is dropped. The hop's runner ends quietly when it sees this.
 */
public final class InvocationAbandoned extends RuntimeException {
    private static final long serialVersionUID = 1L;

    private static final InvocationAbandoned INSTANCE = new InvocationAbandoned();

    private InvocationAbandoned() {
        super("sandboxed invocation abandoned at its wall-time limit", null, false, false);
    }

    /** The one instance (it has no stack trace). */
    public static InvocationAbandoned instance() {
        return INSTANCE;
    }
}
