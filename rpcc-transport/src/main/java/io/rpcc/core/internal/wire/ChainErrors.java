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
import io.rpcc.core.PermissionDeniedException;
import io.rpcc.core.ProtocolVersionException;
import io.rpcc.core.ReplayDivergedException;
import io.rpcc.core.TransactionAbortedException;
import io.rpcc.core.RepositoryUnavailableException;
import io.rpcc.core.SandboxViolationException;
import io.rpcc.core.ServiceFunctionException;
import io.rpcc.core.SubChainException;
import io.rpcc.core.UnknownServerException;
import io.rpcc.core.UnknownServiceFunctionException;
import io.rpcc.core.UnregisteredTypeException;
import io.rpcc.core.spi.EngineSpi;
import java.util.EnumMap;
import java.util.Map;
import java.util.function.Function;

/**
 * The one place inside rpcc that maps each public {@link ChainErrorCode} (whose
 * {@link ChainErrorCode#number() number} is the wire value; {@link ChainErrorCode#forNumber} reads a
 * newer peer's unknown number as {@link ChainErrorCode#INTERNAL}) to its public exception type.
 * Inside rpcc a failure's kind is the public code itself.
 */
@EngineSpi
public final class ChainErrors {
    private static final Map<ChainErrorCode, Mapping> BY_CODE = byCode();

    private ChainErrors() {
    }

    /** The public exception for {@code failure}, of kind {@code code}. */
    public static ChainException toException(ChainErrorCode code, ChainFailure failure) {
        return BY_CODE.get(code).factory().apply(failure);
    }

    /**
     * The name of {@code code}'s public exception type, used as the failure's exception name for
     * rpcc's own errors.
     */
    public static String exceptionName(ChainErrorCode code) {
        return BY_CODE.get(code).type().getName();
    }

    /**
     * Whether {@code code} means the peer could not be reached at all (so that reporting the failure
     * to the same peer is pointless).
     */
    public static boolean unreachable(ChainErrorCode code) {
        return code == ChainErrorCode.HOP_UNREACHABLE || code == ChainErrorCode.PEER_AUTHENTICATION
                || code == ChainErrorCode.PROTOCOL_VERSION;
    }

    private record Mapping(Class<? extends ChainException> type, Function<ChainFailure, ChainException> factory) {
    }

    private static Map<ChainErrorCode, Mapping> byCode() {
        Map<ChainErrorCode, Mapping> m = new EnumMap<>(ChainErrorCode.class);
        for (ChainErrorCode c : ChainErrorCode.values()) {
            m.put(c, mapping(c));
        }
        return m;
    }

    /** The switch is exhaustive: a new public code does not compile until it has its exception type. */
    private static Mapping mapping(ChainErrorCode code) {
        return switch (code) {
            case INTERNAL -> new Mapping(ChainException.class, ChainException::new);
            case UNKNOWN_SERVER -> new Mapping(UnknownServerException.class, UnknownServerException::new);
            case UNKNOWN_SERVICE_FUNCTION ->
                    new Mapping(UnknownServiceFunctionException.class, UnknownServiceFunctionException::new);
            case SERVICE_FUNCTION_FAILED -> new Mapping(ServiceFunctionException.class, ServiceFunctionException::new);
            case CHAINING_FUNCTION_FAILED ->
                    new Mapping(ChainingFunctionException.class, ChainingFunctionException::new);
            case CHAINING_FUNCTION_COMPILE ->
                    new Mapping(ChainingFunctionCompileException.class, ChainingFunctionCompileException::new);
            case HOP_UNREACHABLE -> new Mapping(HopUnreachableException.class, HopUnreachableException::new);
            case MALFORMED_FRAME -> new Mapping(MalformedFrameException.class, MalformedFrameException::new);
            case FRAME_TOO_LARGE -> new Mapping(FrameTooLargeException.class, FrameTooLargeException::new);
            case UNREGISTERED_TYPE -> new Mapping(UnregisteredTypeException.class, UnregisteredTypeException::new);
            case HOP_LIMIT_EXCEEDED -> new Mapping(HopLimitExceededException.class, HopLimitExceededException::new);
            case TIMEOUT -> new Mapping(ChainTimeoutException.class, ChainTimeoutException::new);
            case FLOW_CONTROL -> new Mapping(FlowControlException.class, FlowControlException::new);
            case SANDBOX_VIOLATION -> new Mapping(SandboxViolationException.class, SandboxViolationException::new);
            case FUNCTION_NOT_FOUND ->
                    new Mapping(ChainingFunctionNotFoundException.class, ChainingFunctionNotFoundException::new);
            case REPOSITORY_UNAVAILABLE ->
                    new Mapping(RepositoryUnavailableException.class, RepositoryUnavailableException::new);
            case PEER_AUTHENTICATION ->
                    new Mapping(PeerAuthenticationException.class, PeerAuthenticationException::new);
            case DEADLINE_EXCEEDED -> new Mapping(DeadlineExceededException.class, DeadlineExceededException::new);
            case CANCELLED -> new Mapping(ChainCancelledException.class, ChainCancelledException::new);
            case PROTOCOL_VERSION -> new Mapping(ProtocolVersionException.class, ProtocolVersionException::new);
            case HOP_REJECTED -> new Mapping(HopRejectedException.class, HopRejectedException::new);
            case NODE_CLOSED -> new Mapping(NodeClosedException.class, NodeClosedException::new);
            case NODE_SHUTTING_DOWN -> new Mapping(NodeShuttingDownException.class, NodeShuttingDownException::new);
            case SUB_CHAIN -> new Mapping(SubChainException.class, SubChainException::new);
            case BROKEN_CHAIN -> new Mapping(BrokenChainException.class, BrokenChainException::new);
            case PERMISSION_DENIED ->
                    new Mapping(PermissionDeniedException.class, PermissionDeniedException::new);
            case REPLAY_DIVERGED -> new Mapping(ReplayDivergedException.class, ReplayDivergedException::new);
            case ABORTED -> new Mapping(TransactionAbortedException.class, TransactionAbortedException::new);
        };
    }
}
