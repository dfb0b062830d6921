package io.rpcc.client.internal;

import io.rpcc.core.BranchId;
import io.rpcc.core.BrokenChainException;
import io.rpcc.core.ChainException;
import io.rpcc.core.ChainFailure;
import io.rpcc.core.ChainResult;
import io.rpcc.core.ChainState;
import io.rpcc.core.ChainingFunctionSource;
import io.rpcc.core.ConsoleLine;
import io.rpcc.core.HopTiming;
import io.rpcc.core.Metadata;
import io.rpcc.core.internal.chain.ChainOriginator;
import io.rpcc.core.internal.chain.HeartbeatPolicy;
import io.rpcc.core.internal.chain.Node;
import io.rpcc.core.internal.wire.ChainResultFrame;
import io.rpcc.core.internal.wire.HopFailure;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.atomic.AtomicReference;

/**
 * Starts chains at the originator (paper Fig. 3, steps 1 and 2) and turns what comes back into a
 * {@link ChainResult}, a {@link io.rpcc.client.ReplySet} or a {@link ChainException}. A chain's outcome is
 * delivered only once the chain is <em>finished</em> (all its termination credit is back), so no
 * partial reply can arrive after it.
 */
public final class ChainLauncher {
    private final Node node;

    /** What to make of a chain declared broken (paper 3.9): for chain mode, its {@link ChainDiagnosis}. */
    @FunctionalInterface
    public interface OnBroken {
        /**
         * Chain {@code broken} was declared broken ({@code detected}), {@code timeLeft} before the
         * call's timeout: the call's outcome.
         */
        CompletableFuture<ChainResult> handle(ChainOriginator.Pending broken, BrokenChainException detected,
                                              Duration timeLeft);
    }

    /** A launcher for chains started by {@code node}. */
    public ChainLauncher(Node node) {
        this.node = node;
    }

    /** The node. */
    public Node node() {
        return node;
    }

    /**
     * Starts a chain in chain mode: the whole chain runs at the servers and the result comes
     * straight from the last one. Partial replies are collected into {@link ChainResult#replies()}.
     * The future completes on an event loop: attach no user code. Cancelling it cancels the chain.
     * Its heartbeats are watched as {@code heartbeats} says; if it is declared broken, the call's
     * outcome is what {@code onBroken} makes of it (its partial replies so far are dropped).
     */
    public CompletableFuture<ChainResult> start(String server, String serviceFunction, Object params,
                                               ChainingFunctionSource cf, ChainState state, Metadata metadata,
                                               Duration timeout, Instant deadline, int maxHops,
                                               HeartbeatPolicy heartbeats, OnBroken onBroken) {
        List<Object> collected = Collections.synchronizedList(new ArrayList<>());
        ChainOriginator.Pending p = launch(server, serviceFunction, params, cf, state, metadata, timeout, deadline, 1,
                maxHops, List.of(), (value, hop, host, from) -> collected.add(value), heartbeats);
        AtomicReference<CompletableFuture<ChainResult>> diagnosing = new AtomicReference<>();
        CancellableFuture<ChainResult> out = new CancellableFuture<>(() -> {
            CompletableFuture<ChainResult> d = diagnosing.get();
            if (d != null) {
                d.cancel(true);
                return CancellableFuture.cancellationCause(d);
            }
            return cancel(p, "its future was cancelled");
        });
        whenFinished(p).thenApply(arrival -> toResult(arrival.frame(),
                arrival.arrivedNanos() - p.startNanos(), false).withReplies(collected)).whenComplete((r, e) -> {
                    Throwable cause = e == null ? null : Node.unwrap(e);
                    if (cause instanceof BrokenChainException broken && !out.isDone()) {
                        CompletableFuture<ChainResult> d = onBroken.handle(p, broken,
                                timeout.minusNanos(System.nanoTime() - p.startNanos()));
                        diagnosing.set(d);
                        d.whenComplete((dr, de) -> {
                            if (de == null) {
                                out.complete(dr);
                            } else {
                                out.completeExceptionally(Node.unwrap(de));
                            }
                        });
                    } else if (e == null) {
                        out.complete(r);
                    } else {
                        out.completeExceptionally(cause);
                    }
                });
        return out;
    }

    /**
     * Cancels chain {@code p} (see {@link Node#cancel}); returns the exception it ended with, or
     * {@code null} if it had ended before.
     */
    Throwable cancel(ChainOriginator.Pending p, String why) {
        node.cancel(p, why);
        return p.outcome().handle((r, e) -> e == null ? null : Node.unwrap(e)).getNow(null);
    }

    /**
     * Starts a chain in chain mode whose partial replies go to {@code replies} as they arrive;
     * returns what cancels it.
     */
    public Runnable startWithReplies(BufferedReplySet<?> replies, String server, String serviceFunction, Object params,
                                     ChainingFunctionSource cf, ChainState state, Metadata metadata,
                                     Duration timeout, Instant deadline, int maxHops, HeartbeatPolicy heartbeats) {
        ChainOriginator.Pending p = launch(server, serviceFunction, params, cf, state, metadata, timeout, deadline, 1,
                maxHops, List.of(), replies.sink(), heartbeats);
        p.outcome().whenComplete((arrival, e) -> {
            if (e == null) {
                try {
                    replies.resultArrived(toResult(arrival.frame(), arrival.arrivedNanos() - p.startNanos(), false));
                } catch (ChainException bad) {
                    replies.resultFailed(bad);
                }
            } else {
                replies.resultFailed(Node.unwrap(e));
            }
        });
        p.finished().whenComplete((v, e) -> replies.finished(e == null ? null : Node.unwrap(e)));
        return () -> node.cancel(p, "ReplySet.cancel()");
    }

    /**
     * The outcome of {@code p} once it is finished: waits for both the result (or error) and the
     * recovery of all credit, whichever comes last, so that every partial reply is in first.
     */
    static CompletableFuture<ChainOriginator.Arrival> whenFinished(ChainOriginator.Pending p) {
        return CompletableFuture.allOf(p.outcome(), p.finished()).handle((v, e) -> {
            if (p.outcome().isCompletedExceptionally()) {
                return p.outcome().join(); // throws the chain's error
            }
            p.finished().join(); // throws a timeout if credit is missing
            return p.outcome().join();
        });
    }

    /**
     * Sends hop {@code hop} (after {@code path}) with all the chain's credit and registers it; its
     * budget is the earlier of {@code timeout} and {@code deadline} (or {@code null}); its heartbeats
     * are watched as {@code heartbeats} says.
     */
    ChainOriginator.Pending launch(String server, String serviceFunction, Object params, ChainingFunctionSource cf,
                                   ChainState state, Metadata metadata, Duration timeout, Instant deadline, int hop,
                                   int maxHops, List<String> path, ChainOriginator.ReplySink sink,
                                   HeartbeatPolicy heartbeats) {
        return node.launch(server, serviceFunction, params, cf, state, metadata, timeout, deadline, hop, maxHops, path,
                sink, BranchId.root(), heartbeats, null);
    }

    /** The result in {@code frame}; throws if its value could not be decoded. */
    ChainResult toResult(ChainResultFrame frame, long elapsedNanos, boolean interactive) {
        if (frame.decodeError() != null) {
            throw failure(frame.decodeError(), frame.path().isEmpty() ? "" : frame.path().getLast(), frame.path().size(),
                    frame.path(), frame.console(), frame.timings());
        }
        return new ChainResult(frame.value(), node.name(), frame.path(), frame.console(), frame.timings(),
                Duration.ofNanos(elapsedNanos), interactive, List.of());
    }

    /** The public exception for {@code f}, which happened at {@code host} on hop {@code hop}. */
    static ChainException failure(HopFailure f, String host, int hop, List<String> path, List<ConsoleLine> console,
                                  List<HopTiming> timings) {
        return f.code().toException(new ChainFailure(f.exceptionName(), f.getMessage(), host, hop, path, f.details(),
                console, timings, f.fields()));
    }

    /** Waits for {@code f}, throwing the chain's exception itself rather than a wrapper. */
    static <T> T join(CompletableFuture<T> f) {
        try {
            return f.join();
        } catch (CompletionException e) {
            throw e.getCause() instanceof RuntimeException re ? re : e;
        }
    }
}
