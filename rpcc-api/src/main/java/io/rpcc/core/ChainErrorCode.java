package io.rpcc.core;

/**
 * What kind of failure ended a chain: {@link ChainException#code()}, one code per rpcc exception
 * type, for code that switches on the kind rather than testing exception classes.
 *
 * <pre>{@code
 * switch (e.code()) {
 *     case HOP_UNREACHABLE, REPOSITORY_UNAVAILABLE -> retryLater(order);
 *     case SANDBOX_VIOLATION -> alert(((SandboxViolationException) e).rule());
 *     default -> fail(e);
 * }
 * }</pre>
 *
 * <p>Each code has a fixed {@link #number()}: the number that travels in ERROR frames (see
 * {@code docs/reference/protocol.md}). Numbers are never reused or renumbered; new codes get new numbers. A
 * number this build does not know (sent by a newer node) is reported as {@link #INTERNAL}, and
 * {@link ChainException#exceptionName()} still names the newer node's exception.
 *
 * <p>Whether retrying a chain that failed with a code can help is {@link ChainException#isRetryable()}.
 */
public enum ChainErrorCode {
    /** rpcc itself failed unexpectedly, or a newer node sent a code this build does not know. */
    INTERNAL(0),
    /** The name resolver knows no address for a server the chain names ({@link UnknownServerException}). */
    UNKNOWN_SERVER(1),
    /** The server hosts no service function of that name ({@link UnknownServiceFunctionException}). */
    UNKNOWN_SERVICE_FUNCTION(2),
    /** A service function threw ({@link ServiceFunctionException}). */
    SERVICE_FUNCTION_FAILED(3),
    /** A chaining function threw or returned something unusable ({@link ChainingFunctionException}). */
    CHAINING_FUNCTION_FAILED(4),
    /** A chaining function did not compile ({@link ChainingFunctionCompileException}). */
    CHAINING_FUNCTION_COMPILE(5),
    /** The next hop's server could not be reached; it did not receive the chain ({@link HopUnreachableException}). */
    HOP_UNREACHABLE(6),
    /** A frame of the chain could not be decoded ({@link MalformedFrameException}). */
    MALFORMED_FRAME(7),
    /** A frame of the chain was over the receiver's size limit ({@link FrameTooLargeException}). */
    FRAME_TOO_LARGE(8),
    /** A value's type is not registered on some node ({@link UnregisteredTypeException}). */
    UNREGISTERED_TYPE(9),
    /** The chain reached its hop limit ({@link HopLimitExceededException}). */
    HOP_LIMIT_EXCEEDED(10),
    /** The originator stopped waiting for the chain ({@link ChainTimeoutException}). */
    TIMEOUT(11),
    /** Partial replies were not read in time ({@link FlowControlException}). */
    FLOW_CONTROL(12),
    /** A chaining function broke a sandbox rule ({@link SandboxViolationException}). */
    SANDBOX_VIOLATION(13),
    /** The repository has no chaining function of that id ({@link ChainingFunctionNotFoundException}). */
    FUNCTION_NOT_FOUND(14),
    /** The repository could not be reached, or did not answer in time ({@link RepositoryUnavailableException}). */
    REPOSITORY_UNAVAILABLE(15),
    /** TLS could not authenticate a peer ({@link PeerAuthenticationException}). */
    PEER_AUTHENTICATION(16),
    /** The chain's deadline passed before a hop could start ({@link DeadlineExceededException}). */
    DEADLINE_EXCEEDED(17),
    /** The originator cancelled the chain ({@link ChainCancelledException}). */
    CANCELLED(18),
    /** Two nodes have no protocol version in common ({@link ProtocolVersionException}). */
    PROTOCOL_VERSION(19),
    /** A server interceptor or service function refused the hop ({@link HopRejectedException}). */
    HOP_REJECTED(20),
    /** The originator, or the server running a hop, was closed ({@link NodeClosedException}). */
    NODE_CLOSED(21),
    /** A draining node refused new work; a server's hop did not start ({@link NodeShuttingDownException}). */
    NODE_SHUTTING_DOWN(22),
    /**
     * A nested sub-chain could not be started or could not return: nested more than 64 levels deep,
     * or its creator no longer holds the chain it returns to ({@link SubChainException}).
     */
    SUB_CHAIN(23),
    /**
     * A branch of the chain stopped sending heartbeats: the node holding it crashed, was cut off or
     * stalls ({@link BrokenChainException}, at the originator only).
     */
    BROKEN_CHAIN(24),
    /**
     * A server refused the hop for who asked for it: the chain's originator credential is missing or
     * forged, or the server's chain policy does not let that originator (or previous hop) call that
     * service function ({@link PermissionDeniedException}).
     */
    PERMISSION_DENIED(25),
    /**
     * A {@link SequentialChain} made another call, at a position of its replay, than the one it made
     * there before (it is not deterministic), or returned before a call it had made
     * ({@link ReplayDivergedException}).
     */
    REPLAY_DIVERGED(26),
    /**
     * An atomic chain's transaction was rolled back at every server it ran at: a hop failed and the
     * failure reached the client, a server voted against it, it was wounded by an older transaction
     * too close to its deadline to run again, or a server it ran at was lost before it could
     * commit ({@link TransactionAbortedException}).
     */
    ABORTED(27);

    private static final ChainErrorCode[] BY_NUMBER = byNumber();

    private final int number;

    ChainErrorCode(int number) {
        this.number = number;
    }

    /** The code's stable number, as carried on the wire. */
    public int number() {
        return number;
    }

    /** The code numbered {@code number}, or {@link #INTERNAL} for a number this build does not know. */
    public static ChainErrorCode forNumber(int number) {
        return number >= 0 && number < BY_NUMBER.length && BY_NUMBER[number] != null ? BY_NUMBER[number] : INTERNAL;
    }

    private static ChainErrorCode[] byNumber() {
        int max = 0;
        for (ChainErrorCode c : values()) {
            max = Math.max(max, c.number);
        }
        ChainErrorCode[] out = new ChainErrorCode[max + 1];
        for (ChainErrorCode c : values()) {
            out[c.number] = c;
        }
        return out;
    }
}
