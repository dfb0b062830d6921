package io.rpcc.core.internal.wire;

import io.rpcc.core.ChainCancelledException;
import io.rpcc.core.ChainException;
import io.rpcc.core.ChainFailure;
import io.rpcc.core.ChainTimeoutException;
import io.rpcc.core.ChainingFunctionCompileException;
import io.rpcc.core.ChainingFunctionException;
import io.rpcc.core.DeadlineExceededException;
import io.rpcc.core.FrameTooLargeException;
import io.rpcc.core.HopLimitExceededException;
import io.rpcc.core.HopUnreachableException;
import io.rpcc.core.MalformedFrameException;
import io.rpcc.core.ServiceFunctionException;
import io.rpcc.core.UnknownServerException;
import io.rpcc.core.UnknownServiceFunctionException;
import io.rpcc.core.UnregisteredTypeException;
import java.util.function.Function;

/** The kind of a chain failure, as carried on the wire; each maps to one public exception type. */
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
    FLOW_CONTROL(io.rpcc.core.FlowControlException.class, io.rpcc.core.FlowControlException::new),
    SANDBOX_VIOLATION(io.rpcc.core.SandboxViolationException.class, io.rpcc.core.SandboxViolationException::new),
    FUNCTION_NOT_FOUND(io.rpcc.core.ChainingFunctionNotFoundException.class,
            io.rpcc.core.ChainingFunctionNotFoundException::new),
    REPOSITORY_UNAVAILABLE(io.rpcc.core.RepositoryUnavailableException.class,
            io.rpcc.core.RepositoryUnavailableException::new),
    /** Appended last: a code's ordinal is its wire value. */
    PEER_AUTHENTICATION(io.rpcc.core.PeerAuthenticationException.class,
            io.rpcc.core.PeerAuthenticationException::new),
    /** A hop arrived after the chain's deadline (wire value 17). */
    DEADLINE_EXCEEDED(DeadlineExceededException.class, DeadlineExceededException::new),
    /** The originator cancelled the chain (wire value 18). */
    CANCELLED(ChainCancelledException.class, ChainCancelledException::new);

    private static final ErrorCode[] VALUES = values();

    private final Class<? extends ChainException> type;
    private final Function<ChainFailure, ChainException> factory;

    ErrorCode(Class<? extends ChainException> type, Function<ChainFailure, ChainException> factory) {
        this.type = type;
        this.factory = factory;
    }

    /**
     * Whether this code means the peer could not be reached at all (so that reporting the failure to
     * the same peer is pointless).
     */
    public boolean unreachable() {
        return this == HOP_UNREACHABLE || this == PEER_AUTHENTICATION;
    }

    /** The public exception type's name, used as the failure's exception name for rpcc's own errors. */
    public String exceptionName() {
        return type.getName();
    }

    /** The public exception for {@code failure}. */
    public ChainException toException(ChainFailure failure) {
        return factory.apply(failure);
    }

    /** The code with wire value {@code ordinal}, or {@link #INTERNAL} for codes from a newer peer. */
    public static ErrorCode fromWire(int ordinal) {
        return ordinal >= 0 && ordinal < VALUES.length ? VALUES[ordinal] : INTERNAL;
    }
}
