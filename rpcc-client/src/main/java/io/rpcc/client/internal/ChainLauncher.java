package io.rpcc.client.internal;

import io.rpcc.client.RetryPolicy;
import io.rpcc.core.BrokenChainException;
import io.rpcc.core.ChainException;
import io.rpcc.core.ChainResult;
import io.rpcc.core.ConsoleLine;
import io.rpcc.core.HopPath;
import io.rpcc.core.HopTiming;
import io.rpcc.core.internal.chain.ChainOriginator;
import io.rpcc.core.internal.chain.ChainStart;
import io.rpcc.core.internal.chain.Node;
import io.rpcc.core.internal.wire.ChainResultFrame;
import io.rpcc.core.internal.wire.HopFailure;
import io.rpcc.core.spi.ReadLazily;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.BiConsumer;

/**
 * Starts chains at the originator (paper Fig. 3, steps 1 and 2) and turns what comes back into a
 * {@link ChainResult}, a {@link io.rpcc.client.ReplySet} or a {@link ChainException}. A chain's outcome is
 * delivered only once the chain is <em>finished</em> (all its termination credit is back), so no
 * partial reply can arrive after it.
 */
public final class ChainLauncher {
    private final Node node;
    private final RetryTokens retryTokens;
    private final FailedChains failedChains = new FailedChains();
    private final AtomicLong retries = new AtomicLong();

    /**
     * What to make of a chain declared broken (paper 3.9) once no retry is left: for chain mode, its
     * {@link ChainDiagnosis#diagnose}.
     */
    @FunctionalInterface
    public interface OnBroken {
        /**
         * Chain {@code broken} (its last attempt), started as {@code start} (its timeout: what is left
         * of the call's), was declared broken ({@code detected}): the call's outcome.
         */
        CompletableFuture<ChainResult> handle(ChainOriginator.Pending broken, BrokenChainException detected,
                                              ChainStart start);
    }

    /** What to do with a chain whose partial replies are read when its last attempt broke (see {@link OnBroken}). */
    @FunctionalInterface
    public interface OnBrokenWithReplies {
        /**
         * As {@link OnBroken#handle}, for a chain whose replies go to {@code replies}, which this
         * ends with the call's outcome; returns what cancels it.
         */
        Runnable handle(BufferedReplySet<?> replies, ChainOriginator.Pending broken, BrokenChainException detected,
                        ChainStart start);
    }

    /** A launcher for chains started by {@code node}, whose retries take tokens from {@code retryTokens}. */
    public ChainLauncher(Node node, RetryTokens retryTokens) {
        this.node = node;
        this.retryTokens = retryTokens;
    }

    /** The node. */
    public Node node() {
        return node;
    }

    /**
     * Starts a chain in chain mode: the whole chain runs at the servers and the result comes
     * straight from the last one. Partial replies are collected into {@link ChainResult#replies()}.
     * The future completes on an event loop: attach no user code. Cancelling it cancels the chain.
     * Its attempts are retried as {@code retry} says and its heartbeats watched as {@code start} says;
     * if it is declared broken, the call's outcome is what {@code onBroken} makes of it (its partial
     * replies so far are dropped). Each retry is told to {@code retried}, each reply delivered to {@code tap}.
     */
    public CompletableFuture<ChainResult> start(ChainStart start, RetryPolicy retry, OnBroken onBroken,
                                                Retries retried, ReplyTap tap) {
        return start(start, retry, onBroken, null, retried, tap, false);
    }

    /**
     * As {@link #start(ChainStart, RetryPolicy, OnBroken, Retries, ReplyTap)}; if {@code atDecision}
     * (an atomic chain started with {@code AtomicCompletion.DECIDED}), a committed chain's future
     * completes at the decision, not once every voter has acknowledged it (its partial replies are in by
     * then: they are held here until the decision and delivered before it is told). A failure, an abort
     * included, ends the future as without it: once the chain is finished.
     */
    public CompletableFuture<ChainResult> start(ChainStart start, RetryPolicy retry, OnBroken onBroken,
                                                Retries retried, ReplyTap tap, boolean atDecision) {
        return start(start, retry, onBroken, null, retried, tap, atDecision && start.atomic());
    }

    /**
     * Sends the chain that failed with {@code failure} again (same id and secret, so that its servers
     * replay the outcomes they kept of its hops), with {@code timeout} and {@code deadline}, retrying
     * as {@code retry} says, its heartbeats watched as when it was first sent; as
     * {@link #start(ChainStart, RetryPolicy, OnBroken, Retries, ReplyTap)} otherwise.
     *
     * @throws IllegalArgumentException if {@code failure} is not the failure of a chain this client
     *     started in chain mode and still remembers ({@link FailedChains})
     */
    public CompletableFuture<ChainResult> retransmit(ChainException failure, Duration timeout, Instant deadline,
                                                     RetryPolicy retry, OnBroken onBroken) {
        FailedChains.Failed failed = failedChains.take(failure);
        return start(failed.start().within(timeout, deadline), retry, onBroken, failed.last(), (attempt, why) -> { },
                ReplyTap.NONE, false);
    }

    /** The id of the chain that failed with {@code failure}, as servers and logs name it, if this client remembers it. */
    public Optional<String> chainIdOf(ChainException failure) {
        return failedChains.lastAttempt(failure).map(p -> node.originator().chainId(p.id()));
    }

    /**
     * The attempts of {@code start} (from {@code earlier}'s next, if not {@code null}), as {@code retry}
     * says; a last attempt that broke, with no retry left, is diagnosed by {@code onBroken} (paper 3.9:
     * broken, sent again, broken again, then run step by step to find where it stops).
     */
    private CompletableFuture<ChainResult> start(ChainStart start, RetryPolicy retry, OnBroken onBroken,
                                                 ChainOriginator.Pending earlier, Retries retried, ReplyTap tap,
                                                 boolean atDecision) {
        List<Object> collected = Collections.synchronizedList(new ArrayList<>());
        ChainAttempts attempts = ChainAttempts.start(node, start, retry, retryTokens,
                tap.tapping((value, hop, host, from) -> collected.add(value)), Retries.countedIn(retries, retried),
                earlier);
        AtomicReference<CompletableFuture<ChainResult>> diagnosing = new AtomicReference<>();
        CancellableFuture<ChainResult> out = new CancellableFuture<>(() -> {
            CompletableFuture<ChainResult> d = diagnosing.get();
            if (d != null) {
                d.cancel(true);
                return CancellableFuture.cancellationCause(d);
            }
            return attempts.cancel("its future was cancelled");
        });
        // one callback per stage the chain passes (its last attempt, its end), no future made per step
        attempts.last().whenComplete((p, never) -> whenEnded(p, atDecision, (arrival, e) -> {
            ChainResult r = null;
            Throwable cause = e == null ? null : Node.unwrap(e);
            if (cause == null) {
                try {
                    r = toResult(arrival.frame(), arrival.arrivedNanos() - attempts.startNanos(), false, collected);
                } catch (RuntimeException bad) {
                    cause = bad;
                }
            }
            if (cause instanceof BrokenChainException broken && !out.isDone() && !start.atomic()) {
                // (an atomic chain is not diagnosed step by step: it aborted; its hops do not run again)
                CompletableFuture<ChainResult> d = onBroken.handle(p, broken, start.withTimeout(
                        start.timeout().minusNanos(System.nanoTime() - attempts.startNanos())));
                diagnosing.set(d);
                if (out.isDone()) { // cancelled before the diagnosis could be
                    d.cancel(true);
                }
                d.whenComplete((dr, de) -> {
                    if (de == null) {
                        out.complete(dr);
                    } else {
                        fail(out, Node.unwrap(de), start, p);
                    }
                });
            } else if (cause == null) {
                out.complete(r);
            } else {
                fail(out, cause, start, p);
            }
        }));
        return out;
    }

    /**
     * Ends {@code out} with {@code cause}; a retryable failure is remembered with {@code start} and
     * its last attempt {@code p}, so that the application may send the chain again.
     */
    private void fail(CompletableFuture<ChainResult> out, Throwable cause, ChainStart start,
                      ChainOriginator.Pending p) {
        if (cause instanceof ChainException ce && ce.isRetryable()) {
            failedChains.remember(ce, start, p);
        }
        out.completeExceptionally(cause);
    }

    /** Chains sent again by a retry policy (not counting those the application sent again). */
    public long retries() {
        return retries.get();
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
     * returns what cancels it. Each retry is told to {@code retried}.
     */
    public Runnable startWithReplies(BufferedReplySet<?> replies, ChainStart start, RetryPolicy retry,
                                     OnBrokenWithReplies onBroken, Retries retried) {
        ChainAttempts attempts = ChainAttempts.start(node, start, retry, retryTokens, replies.sink(),
                Retries.countedIn(retries, retried), null);
        AtomicReference<Runnable> diagnosing = new AtomicReference<>();
        AtomicBoolean cancelled = new AtomicBoolean();
        attempts.last().whenComplete((p, never) -> {
            p.outcome().whenComplete((arrival, e) -> {
                Throwable cause = e == null ? null : Node.unwrap(e);
                if (e == null) {
                    try {
                        replies.resultArrived(toResult(arrival.frame(), arrival.arrivedNanos() - attempts.startNanos(),
                                false));
                    } catch (ChainException bad) {
                        replies.resultFailed(bad);
                    }
                } else if (cause instanceof BrokenChainException broken && !cancelled.get() && !start.atomic()) {
                    // paper 3.9: broken, sent again, broken again: run step by step, the replies to the same set
                    // (a broken attempt's finished() fails right after its outcome: the set is the diagnosis's now)
                    diagnosing.set(onBroken.handle(replies, p, broken, start.withTimeout(
                            start.timeout().minusNanos(System.nanoTime() - attempts.startNanos()))));
                    if (cancelled.get()) {
                        diagnosing.get().run();
                    }
                } else {
                    replies.resultFailed(cause);
                }
            });
            p.finished().whenComplete((v, e) -> {
                if (diagnosing.get() == null) {
                    replies.finished(e == null ? null : Node.unwrap(e));
                }
            });
        });
        return () -> {
            cancelled.set(true);
            Runnable d = diagnosing.get();
            if (d != null) {
                d.run();
                return;
            }
            Throwable why = attempts.cancel("ReplySet.cancel()");
            replies.resultFailed(why);
            replies.finished(why);
        };
    }

    /**
     * Calls {@code then} once with the outcome of {@code p} at its end: at its decision (a commit's arrival
     * as soon as the originator decided it, every partial reply, held until then, delivered before) if
     * {@code atDecision}, else once it is finished ({@link #whenFinished}); a failure (an abort included)
     * once it is finished.
     */
    private static void whenEnded(ChainOriginator.Pending p, boolean atDecision,
                                  BiConsumer<ChainOriginator.Arrival, Throwable> then) {
        if (!atDecision) {
            whenFinished(p, then);
            return;
        }
        p.outcome().whenComplete((arrival, e) -> {
            if (e == null) {
                then.accept(arrival, null);
            } else {
                whenFinished(p, then);
            }
        });
    }

    /**
     * Calls {@code then} once with the outcome of {@code p} when it is finished: once both the result (or
     * error) and all credit are home, whichever comes last, so that every partial reply is in first. It
     * gets the chain's error if it failed, else a timeout if credit is missing, else the chain's arrival.
     */
    static void whenFinished(ChainOriginator.Pending p, BiConsumer<ChainOriginator.Arrival, Throwable> then) {
        p.outcome().whenComplete((arrival, e) -> {
            if (p.finished().isDone()) { // (as a failed chain's is by then)
                finished(p, arrival, e, then);
            } else {
                p.finished().whenComplete((v, x) -> finished(p, arrival, e, then));
            }
        });
    }

    private static void finished(ChainOriginator.Pending p, ChainOriginator.Arrival arrival, Throwable e,
                                 BiConsumer<ChainOriginator.Arrival, Throwable> then) {
        if (e != null) {
            then.accept(null, e); // the chain's error
            return;
        }
        Throwable missing = p.finished().isCompletedExceptionally() ? p.finished().handle((v, x) -> x).join() : null;
        then.accept(missing == null ? arrival : null, missing); // a timeout if credit is missing
    }

    /** The result in {@code frame}; throws if its value could not be decoded. */
    ChainResult toResult(ChainResultFrame frame, long elapsedNanos, boolean interactive) {
        return toResult(frame, elapsedNanos, interactive, List.of());
    }

    /** The result in {@code frame}, with the partial replies {@code replies} (made once, not made again with them). */
    private ChainResult toResult(ChainResultFrame frame, long elapsedNanos, boolean interactive, List<Object> replies) {
        if (frame.decodeError() != null) {
            throw failure(frame.decodeError(), frame.path().isEmpty() ? "" : frame.path().getLast(),
                    (int) HopPath.visited(frame.path()),
                    frame.path(), frame.console(), frame.timings());
        }
        // the timings came as bytes (CarriedTimings): decoded if the caller reads them, not for every result
        List<HopTiming> carried = frame.timings();
        return new ChainResult(frame.value(), node.name(), frame.path(), frame.console(), ReadLazily.of(() -> carried),
                Duration.ofNanos(elapsedNanos), interactive, replies);
    }

    /** The public exception for {@code f}, which happened at {@code host} on hop {@code hop}. */
    static ChainException failure(HopFailure f, String host, int hop, List<String> path, List<ConsoleLine> console,
                                  List<HopTiming> timings) {
        return f.located(host, hop, path, console, timings).toException();
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
