package io.rpcc.client.internal;

import io.rpcc.core.BrokenChainException;
import io.rpcc.core.ChainErrorCode;
import io.rpcc.core.ChainException;
import io.rpcc.core.ChainFailure;
import io.rpcc.core.ChainResult;
import io.rpcc.core.ChainTimeoutException;
import io.rpcc.core.ConsoleLine;
import io.rpcc.core.HopTiming;
import io.rpcc.core.HopUnreachableException;
import io.rpcc.core.internal.chain.ChainOriginator;
import io.rpcc.core.internal.chain.ChainPosition;
import io.rpcc.core.internal.chain.ChainStart;
import io.rpcc.core.internal.chain.Node;
import io.rpcc.core.internal.wire.ChainErrors;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

/**
 * The diagnosis of a broken chain (paper 3.9: "upon a second timeout, a client executes the RPC
 * chain in interactive mode to determine exactly at which node the chain stopped"): the client runs
 * the chain again as an {@link InteractiveChain}, playing every role (it runs each chaining function
 * and is every merge host), one step at a time, with heartbeats watched as for the chain. The
 * diagnosis is one more attempt of the chain ({@link ChainOriginator#restart}): each step carries
 * the broken chain's id, secret and hop number, so that servers that keep the outcomes of the hops
 * they ran replay them instead of running side effects again, and frames of the broken attempt that
 * still arrive are dropped as an earlier attempt's. The step that cannot be
 * reached, or that sends no heartbeat for the broken-after time, is where the chain stops: the call
 * fails with a {@link BrokenChainException} naming that hop, its service function and its host. If
 * every step answers (the break was transient), the call succeeds with the chain's result; a failure
 * of the chain itself (a service function that throws) is the call's failure.
 *
 * <p>This is one piece on purpose: automatic retry calls it for the last attempt, after
 * retransmissions of the chain broke too.
 */
public final class ChainDiagnosis {
    private final InteractiveChain interactive;

    /** Diagnoses with {@code interactive}, the client's interactive chains. */
    public ChainDiagnosis(InteractiveChain interactive) {
        this.interactive = interactive;
    }

    /**
     * Runs the chain that {@code broken} started ({@code start}, its timeout what is left of the
     * call's) again in interactive mode, as new runs of {@code broken}; {@code detected} is how its
     * break was detected. Completes with the chain's result, or fails with a
     * {@link BrokenChainException} naming the hop where it stops (or, if the call's timeout runs out
     * first, with {@code detected}), or with the chain's own failure. Each reply of the run step by
     * step is told to {@code tap}.
     */
    public CompletableFuture<ChainResult> diagnose(ChainOriginator.Pending broken, BrokenChainException detected,
                                                   ChainStart start, ReplyTap tap) {
        if (start.timeout().isNegative() || start.timeout().isZero()) {
            return CompletableFuture.failedFuture(detected);
        }
        if (start.stream() != null) {
            return CompletableFuture.failedFuture(notRunAgain(detected));
        }
        return interactive.start(start, new StepMode(start.heartbeats(), broken), tap).handle((r, e) -> {
                    if (e == null) {
                        return CompletableFuture.completedFuture(r);
                    }
                    // out of time before it found the hop: the detected break
                    return CompletableFuture.<ChainResult>failedFuture(outOfTime(Node.unwrap(e), detected));
                }).thenCompose(f -> f);
    }

    /**
     * As {@link #diagnose}, for a chain whose partial replies go to {@code replies}: the run step by
     * step sends its replies there too (those the broken attempts delivered are not delivered again),
     * and ends {@code replies} with the call's outcome. Returns what cancels it.
     */
    public Runnable diagnoseWithReplies(BufferedReplySet<?> replies, ChainOriginator.Pending broken,
                                        BrokenChainException detected, ChainStart start) {
        if (start.timeout().isNegative() || start.timeout().isZero() || start.stream() != null) {
            BrokenChainException e = start.stream() != null ? notRunAgain(detected) : detected;
            replies.resultFailed(e);
            replies.finished(e);
            return () -> { };
        }
        return interactive.startWithReplies(replies, start, new StepMode(start.heartbeats(), broken),
                e -> outOfTime(e, detected));
    }

    /**
     * The break of a chain that carries a data stream: a stream is read once, so the chain cannot be
     * sent again step by step; the break as detected, saying so.
     */
    private static BrokenChainException notRunAgain(BrokenChainException detected) {
        ChainFailure f = detected.failure();
        return new BrokenChainException(new ChainFailure(f.exceptionName(), f.message()
                + ". Its data stream was read once, so the chain was not run again step by step to find where it stops",
                f.host(), f.hop(), f.path(), f.details(), f.console(), f.timings(), f.fields()),
                detected.serviceFunction(), detected);
    }

    /** {@code e}, or {@code detected} if {@code e} says the call ran out of time before the diagnosis found the hop. */
    private static Throwable outOfTime(Throwable e, BrokenChainException detected) {
        if (e instanceof ChainTimeoutException) {
            if (!Arrays.asList(detected.getSuppressed()).contains(e)) {
                detected.addSuppressed(e);
            }
            return detected;
        }
        return e;
    }

    /**
     * What the failure {@code e} of the interactive step {@code step} that ran at {@code position} (its hop,
     * after its path), after {@code console} and {@code timings}, means: a step that went silent
     * is where the chain stops, and so, when diagnosing ({@code mode}), is a step whose server could
     * not be reached; both become a {@link BrokenChainException} naming that hop. Any other failure
     * is the chain's own, returned as it is.
     */
    static ChainException whereItStops(ChainException e, ChainStart step, ChainPosition position,
                                       List<ConsoleLine> console, List<HopTiming> timings, StepMode mode) {
        int hop = position.hop();
        String server = step.server();
        String serviceFunction = step.serviceFunction();
        String at = "hop " + hop + " ('" + serviceFunction + "' at '" + server + "')";
        String what;
        if (e instanceof BrokenChainException) {
            what = at + " did not answer and sent no heartbeat for " + TimeUnit.NANOSECONDS.toMillis(
                    mode.heartbeats().brokenAfterNanos()) + " ms: '" + server + "' crashed, was cut off or stalls";
        } else if (mode.diagnosing() && e instanceof HopUnreachableException && e.hop() == 0) {
            what = "'" + server + "' cannot be reached for " + at + " (" + e.remoteMessage() + ")";
        } else {
            return e;
        }
        String chain = mode.diagnosing() ? "the broken chain, run again step by step to find where it stops,"
                : "the interactive chain";
        String message = chain + " stops at " + at + ": " + what + ". Check that '" + server + "' runs and that this "
                + "client and the hop before can reach it, then run the chain again (the failure is retryable)";
        List<String> stoppedAt = new ArrayList<>(position.path());
        stoppedAt.add(server);
        return new BrokenChainException(new ChainFailure(ChainErrors.exceptionName(ChainErrorCode.BROKEN_CHAIN), message,
                server, hop, stoppedAt, List.of(), List.copyOf(console), List.copyOf(timings)), serviceFunction, e);
    }
}
