package io.rpcc.core.internal.function;

/**
 * Thrown on the thread of a sandboxed invocation that the {@link SandboxWatchdog} abandoned when it
 * finally returns: its hop has already failed with rule {@code wall-time}, so whatever the function
 * returned or threw is dropped. The hop's runner ends quietly when it sees this.
 */
public final class InvocationAbandoned extends RuntimeException {
    private static final long serialVersionUID = 1L;

    static final InvocationAbandoned INSTANCE = new InvocationAbandoned();

    private InvocationAbandoned() {
        super("sandboxed invocation abandoned at its wall-time limit", null, false, false);
    }
}
