package io.rpcc.core.internal.wire;

import io.rpcc.core.BrokenChainException;
import io.rpcc.core.ChainCancelledException;
import io.rpcc.core.ChainErrorCode;
import io.rpcc.core.ChainException;
import io.rpcc.core.ChainFailure;
import io.rpcc.core.ChainTimeoutException;
import io.rpcc.core.ChainingFunctionCompileException;
import io.rpcc.core.ChainingFunctionException;
import io.rpcc.core.ChainingFunctionNotFoundException;
import io.rpcc.core.DeadlineExceededException;
import io.rpcc.core.FlowControlException;
import io.rpcc.core.FrameTooLargeException;
import io.rpcc.core.HopLimitExceededException;
import io.rpcc.core.HopRejectedException;
import io.rpcc.core.HopUnreachableException;
import io.rpcc.core.MalformedFrameException;
import io.rpcc.core.NodeClosedException;
import io.rpcc.core.NodeShuttingDownException;
import io.rpcc.core.PeerAuthenticationException;
import io.rpcc.core.ProtocolVersionException;
import io.rpcc.core.RepositoryUnavailableException;
import io.rpcc.core.SandboxViolationException;
import io.rpcc.core.ServiceFunctionException;
import io.rpcc.core.SubChainException;
import io.rpcc.core.UnknownServerException;
import io.rpcc.core.UnknownServiceFunctionException;
import io.rpcc.core.UnregisteredTypeException;
import java.util.function.Function;

/**
 * The kind of a chain failure inside rpcc: the one place that maps each public
 * {@link ChainErrorCode} (whose {@link ChainErrorCode#number() number} is the wire value) to its
 * public exception type. Each constant has the name of its public code.
 */
public enum ErrorCode {
    INTERNAL(ChainException.class, ChainException::new),
    UNKNOWN_SERVER(UnknownServerException.class, UnknownServerException::new),
    UNKNOWN_SERVICE_FUNCTION(UnknownServiceFunctionException.class, UnknownServiceFunctionException::new),
    SERVICE_FUNCTION_FAILED(ServiceFunctionException.class, ServiceFunctionException::new),
    CHAINING_FUNCTION_FAILED(ChainingFunctionException.class, ChainingFunctionException::new),
    CHAINING_FUNCTION_COMPILE(ChainingFunctionCompileException.class, ChainingFunctionCompileException::new),
    HOP_UNREACHABLE(HopUnreachableException.class, HopUnreachableException::new),
    MALFORMED_FRAME(MalformedFrameException.class, MalformedFrameException::new),
    FRAME_TOO_LARGE(FrameTooLargeException.class, FrameTooLargeException::new),
    UNREGISTERED_TYPE(UnregisteredTypeException.class, UnregisteredTypeException::new),
    HOP_LIMIT_EXCEEDED(HopLimitExceededException.class, HopLimitExceededException::new),
    TIMEOUT(ChainTimeoutException.class, ChainTimeoutException::new),
    FLOW_CONTROL(FlowControlException.class, FlowControlException::new),
    SANDBOX_VIOLATION(SandboxViolationException.class, SandboxViolationException::new),
    FUNCTION_NOT_FOUND(ChainingFunctionNotFoundException.class, ChainingFunctionNotFoundException::new),
    REPOSITORY_UNAVAILABLE(RepositoryUnavailableException.class, RepositoryUnavailableException::new),
    PEER_AUTHENTICATION(PeerAuthenticationException.class, PeerAuthenticationException::new),
    PROTOCOL_VERSION(ProtocolVersionException.class, ProtocolVersionException::new),
    HOP_REJECTED(HopRejectedException.class, HopRejectedException::new),
    NODE_CLOSED(NodeClosedException.class, NodeClosedException::new),
    NODE_SHUTTING_DOWN(NodeShuttingDownException.class, NodeShuttingDownException::new),
    DEADLINE_EXCEEDED(DeadlineExceededException.class, DeadlineExceededException::new),
    CANCELLED(ChainCancelledException.class, ChainCancelledException::new),
    SUB_CHAIN(SubChainException.class, SubChainException::new),
    BROKEN_CHAIN(BrokenChainException.class, BrokenChainException::new);

    private static final ErrorCode[] BY_NUMBER = byNumber();

    private final ChainErrorCode code;
    private final Class<? extends ChainException> type;
    private final Function<ChainFailure, ChainException> factory;

    ErrorCode(Class<? extends ChainException> type, Function<ChainFailure, ChainException> factory) {
        this.code = ChainErrorCode.valueOf(name());
        this.type = type;
        this.factory = factory;
    }

    /** The public code. */
    public ChainErrorCode code() {
        return code;
    }

    /** The number that stands for this kind on the wire: its public code's. */
    public int number() {
        return code.number();
    }

    /**
     * Whether this code means the peer could not be reached at all (so that reporting the failure to
     * the same peer is pointless).
     */
    public boolean unreachable() {
        return this == HOP_UNREACHABLE || this == PEER_AUTHENTICATION || this == PROTOCOL_VERSION;
    }

    /** The public exception type's name, used as the failure's exception name for rpcc's own errors. */
    public String exceptionName() {
        return type.getName();
    }

    /** The public exception for {@code failure}. */
    public ChainException toException(ChainFailure failure) {
        return factory.apply(failure);
    }

    /**
     * The kind with wire number {@code number}, or {@link #INTERNAL} for a number this build does not
     * know (a newer peer's).
     */
    public static ErrorCode fromWire(int number) {
        return number >= 0 && number < BY_NUMBER.length && BY_NUMBER[number] != null ? BY_NUMBER[number] : INTERNAL;
    }

    private static ErrorCode[] byNumber() {
        int max = 0;
        for (ErrorCode c : values()) {
            max = Math.max(max, c.number());
        }
        ErrorCode[] out = new ErrorCode[max + 1];
        for (ErrorCode c : values()) {
            out[c.number()] = c;
        }
        return out;
    }
}
