package io.rpcc.server.internal;

import io.rpcc.core.ChainErrorCode;
import io.rpcc.core.ChainException;
import io.rpcc.core.ChainFailure;
import io.rpcc.core.ChainState;
import io.rpcc.core.ChainingFunctionSource;
import io.rpcc.core.SubChainFailureHandler;
import io.rpcc.core.SubChainRecovery;
import io.rpcc.core.internal.chain.FailureLog;
import io.rpcc.core.internal.function.FunctionRuntime;
import io.rpcc.core.internal.wire.ChainHeader;
import io.rpcc.core.internal.wire.ChainSoFar;
import io.rpcc.core.internal.wire.ChainRequest;
import io.rpcc.core.internal.wire.Credit;
import io.rpcc.core.internal.wire.HopFailure;
import io.rpcc.core.internal.wire.LocatedFailure;
import io.rpcc.core.internal.wire.ReturnPoint;
import io.rpcc.core.internal.wire.WireFormat;
import java.util.ArrayList;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Failures inside nested sub-chains (paper 3.8): a failure goes first to the node that created the
 * sub-chain it happened in (the innermost point of the chain's return stack; if that is a split's
 * merge point, the failure is instead the branch's failed outcome, see {@link MergePoints}), in a
 * {@link HopKind#RETURN_FAILURE} request carrying the failure (typed, with its hop, host and path) and the
 * failing hop's credit. There the sub-chain's {@link SubChainFailureHandler} (kept with the parked
 * hop) recovers, and the parked chaining function runs with the recovery as its service function's
 * result, or passes the failure on, unchanged, to the creator's own creator, or to the originator
 * when the return stack is empty. No thread waits for any of it: the parked hop is an entry in
 * {@link Continuations}.
 */
final class SubChainFailures {
    private static final Logger log = LoggerFactory.getLogger(FailureLog.LOGGER);

    private SubChainFailures() {
    }

    /**
     * The request that takes {@code failure} (of the chain of {@code h}) and {@code credit} to the
     * creator of the sub-chain {@code h} is in: the innermost point of {@code levels}
     * ({@link #levelsOut}, not empty, its innermost point a sub-chain's).
     */
    static ChainRequest toCreator(ChainHeader h, List<ReturnPoint> levels, LocatedFailure located, Credit credit,
                                  long allowanceNanos) {
        ChainFailure failure = located.failure();
        long budget = h.budgetNanos() == ChainHeader.NO_DEADLINE ? h.budgetNanos() : h.budgetNanos() - allowanceNanos;
        List<String> path = failure.path().isEmpty() ? h.path() : failure.path();
        ChainHeader nh = h.onward(new ChainSoFar(h.hop(), path, failure.console(), failure.timings(), h.metadata()), HopKind.RETURN_FAILURE.wireName(), ChainingFunctionSource.NONE, credit, budget).with(ChainingFunctionSource.NONE, levels);
        return new ChainRequest(nh, WireFormat.encodeFailure(located), ChainState.empty(), null);
    }

    /**
     * The return stack a failure of {@code h} goes back along, innermost last (empty: the chain's
     * top level, the failure goes to the originator): {@code h}'s, less its innermost point if
     * {@code h} is a request on its way to that point that failed before it was popped (a return,
     * a failure to a creator, a split's opening, or a branch's outcome or failure to its merge host:
     * none of these is part of the level it leaves). The innermost point is a sub-chain's (the
     * failure goes to its creator) or a split's merge point (the failure is the branch's failed outcome).
     */
    static List<ReturnPoint> levelsOut(ChainHeader h) {
        List<ReturnPoint> stack = h.returnStack();
        if (stack.isEmpty()) {
            return stack;
        }
        return HopKind.of(h.serviceFunction()).toUnpoppedPoint() ? stack.subList(0, stack.size() - 1) : stack;
    }

    /**
     * The failure that {@code request}, a {@link HopKind#RETURN_FAILURE}, carries: its params are the
     * failure encoded as an ERROR frame's code and failure ({@link WireFormat#encodeFailure}), decoded
     * here once, where the request starts to run.
     */
    static LocatedFailure carried(ChainRequest request) {
        if (!(request.params() instanceof byte[] bytes)) {
            throw new HopFailure(ChainErrorCode.MALFORMED_FRAME, "a " + HopKind.RETURN_FAILURE.wireName() + " request must carry the failure"
                    + " as bytes, not " + (request.params() == null ? "null" : request.params().getClass().getName()));
        }
        return WireFormat.decodeFailure(bytes);
    }

    /** What the creator's handler made of a failure: a recovery, or the failure to pass on. */
    sealed interface Decision {
    }

    /** Recover: {@code result} is the result of the parked hop's service function. */
    record Recover(Object result) implements Decision {
    }

    /** Pass {@code failure} on, to the next creator out or the originator. */
    record PassOn(LocatedFailure failure) implements Decision {
    }

    /**
     * What becomes of {@code failed}, the failure of the sub-chain that {@code parked} started, at
     * node {@code here} (the creator), returning to its {@code point}, as its handler decides: on this
     * thread (the server's executor). Without a parked hop or a handler, the failure is passed on with
     * a line saying so: a composed point's creator parks its hop only for a failure handler, any other
     * parked hop missing was forgotten (expired, cancelled, node restarted). A handler that throws makes
     * a new failure naming the creator's hop.
     */
    static Decision decide(Continuations.Parked parked, LocatedFailure failed, String here, ReturnPoint point) {
        if (parked == null && point.composed()) {
            return new PassOn(withLine(failed, "passed on by '" + here + "', which started the sub-chain (composed; it "
                    + "held no failure handler for it)"));
        }
        if (parked == null) {
            long continuation = point.continuation();
            log.warn("a sub-chain's failure ({}: {} at hop {} on '{}') returned to '{}', which no longer holds the hop "
                    + "that started it (continuation {}): passed on without its handler", failed.failure().exceptionName(),
                    failed.failure().message(), failed.failure().hop(), failed.failure().host(), here, continuation);
            return new PassOn(withLine(failed, "passed on by '" + here + "', which no longer held the hop that started the "
                    + "sub-chain (its handler did not run)"));
        }
        SubChainFailureHandler handler = parked.subChain() == null ? null : parked.subChain().failureHandler();
        String creator = "hop " + parked.header().hop() + " ('" + parked.header().serviceFunction() + "' at '" + here + "')";
        if (handler == null) {
            return new PassOn(withLine(failed, "passed on by " + creator + ", which started the sub-chain"));
        }
        ChainException e = failed.toException();
        SubChainRecovery r;
        try {
            r = handler.handle(e);
        } catch (Throwable t) {
            if (t instanceof InterruptedException) {
                Thread.currentThread().interrupt();
            }
            ChainHeader h = parked.header();
            String message = "the failure handler of the sub-chain started by " + creator + " threw " + t
                    + " while handling " + e.exceptionName() + " from hop " + e.hop() + " at '" + e.host() + "'";
            log.warn("chain {}#{}: {}", h.origin(), h.chainId(), message, t);
            List<String> details = new ArrayList<>(FunctionRuntime.stackTrace(t));
            details.add("while handling: " + e.exceptionName() + ": " + e.remoteMessage());
            return new PassOn(new LocatedFailure(ChainErrorCode.SERVICE_FUNCTION_FAILED, new ChainFailure(t.getClass().getName(),
                    message, here, h.hop(), failed.failure().path(), details, failed.failure().console(),
                    failed.failure().timings())));
        }
        if (r == null) {
            return new PassOn(withLine(failed, "passed on by " + creator + ": its failure handler returned null"));
        }
        return r.recovers() ? new Recover(r.result())
                : new PassOn(withLine(failed, "passed on by the failure handler of " + creator));
    }

    /** {@code f} with {@code line} added to its details: where it went. */
    private static LocatedFailure withLine(LocatedFailure f, String line) {
        ChainFailure c = f.failure();
        List<String> details = new ArrayList<>(c.details());
        details.add(line);
        return new LocatedFailure(f.code(), new ChainFailure(c.exceptionName(), c.message(), c.host(), c.hop(), c.path(),
                details, c.console(), c.timings(), c.fields()));
    }

    /**
     * Logs that the failure of hop {@code h} could not be taken to {@code point}'s node, the creator of
     * its sub-chain or the merge host of its split.
     */
    static void levelUnreachable(ChainHeader h, ReturnPoint point, Throwable why) {
        log.warn("chain {}#{}: cannot take the failure of hop {} to '{}', {}; it goes straight to the originator",
                h.origin(), h.chainId(), h.hop(), point.node().node(), point.isMerge()
                        ? "the merge host of its split (branch " + h.branch() + ")" : "which created its sub-chain",
                why.getMessage());
    }
}
