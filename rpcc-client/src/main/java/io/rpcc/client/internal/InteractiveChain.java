package io.rpcc.client.internal;

import io.rpcc.core.ChainCancelledException;
import io.rpcc.core.ChainErrorCode;
import io.rpcc.core.ChainException;
import io.rpcc.core.ChainFailure;
import io.rpcc.core.ChainResult;
import io.rpcc.core.ChainState;
import io.rpcc.core.ChainingFunctionSource;
import io.rpcc.core.ConsoleLine;
import io.rpcc.core.HopTiming;
import io.rpcc.core.BranchId;
import io.rpcc.core.NextHop;
import io.rpcc.core.StateChoice;
import io.rpcc.core.VirtualConsole;
import io.rpcc.core.internal.chain.ChainOriginator;
import io.rpcc.core.internal.chain.ChainPosition;
import io.rpcc.core.internal.chain.ChainStart;
import io.rpcc.core.internal.chain.HopContext;
import io.rpcc.core.internal.chain.HopControl;
import io.rpcc.core.internal.chain.HopLocation;
import io.rpcc.core.internal.chain.NextHopDecision;
import io.rpcc.core.internal.chain.Node;
import io.rpcc.core.internal.chain.ReplyWindow;
import io.rpcc.core.internal.function.FunctionRuntime;
import io.rpcc.core.internal.wire.CarriedTimings;
import io.rpcc.core.internal.wire.ChainErrors;
import io.rpcc.core.internal.wire.HopFailure;
import io.rpcc.core.internal.wire.LocatedFailure;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.function.UnaryOperator;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * Interactive mode (paper section 3.7): every chaining function runs at the client, so the chain
 * becomes a series of plain RPCs. Each server runs only its service function and returns the result
 * here; the client applies the chaining function and calls the next hop. Results are identical to
 * chain mode, and the chaining functions can be stepped through in a debugger. This is also the
 * plain-RPC baseline for benchmarks. Partial replies of every step go to the same sink; the chain is
 * finished when every step is, and when the work started by client-side chaining functions ended.
 */
public final class InteractiveChain {
    private final ChainLauncher launcher;

    /**
     * What an interactive run produced.
     *
     * @param result the result, or {@code null} if the chain failed
     * @param error the failure, or {@code null}
     * @param finished completes when every partial reply has arrived (fails on timeout)
     * @param maxHops the hop limit the run ended with: its own, or, after a split, what its branches
     *     left unused ({@link NextHopDecision#mergedLimit}); a branch's merge goes on with what is left of it
     */
    public record Run(ChainResult result, ChainException error, CompletableFuture<Void> finished, int maxHops) {
    }

    /**
     * The cancellation of one interactive chain: the step in flight is cancelled (its notice follows
     * its trail like any chain's) and no further step, nor chaining function, starts.
     */
    static final class Cancellation {
        private final Node node;
        private boolean cancelled; // guarded by this
        private ChainOriginator.Pending step; // guarded by this
        private final List<Cancellation> branches = new ArrayList<>(); // guarded by this: a split's branches

        Cancellation(Node node) {
            this.node = node;
        }

        /** The step now in flight; cancelled at once if the chain is. */
        void stepping(ChainOriginator.Pending p) {
            boolean now;
            synchronized (this) {
                step = p;
                now = cancelled;
            }
            if (now) {
                node.cancel(p, "interactive chain cancelled");
            }
        }

        /** Throws the chain's {@link ChainCancelledException} if it was cancelled. */
        synchronized void check(int hop) {
            if (cancelled) {
                throw exception(hop);
            }
        }

        /**
         * Runs {@code delivery} (a reply of hop {@code hop} handed to the chain's set) unless the chain
         * was cancelled, when it throws as {@link #check}: under the lock {@link #cancel} takes, so
         * that a reply is in the set before the cancel ends it, or not delivered at all.
         */
        synchronized void deliver(int hop, Runnable delivery) {
            check(hop);
            delivery.run();
        }

        /** {@code failure}, or the chain's {@link ChainCancelledException} (at its hop) if it was cancelled. */
        synchronized ChainException cancelledOr(ChainException failure) {
            return cancelled && failure.code() != ChainErrorCode.CANCELLED ? exception(Math.max(0, failure.hop())) : failure;
        }

        /** Cancels the chain; returns the exception it ends with. */
        ChainException cancel(String why) {
            ChainOriginator.Pending p;
            List<Cancellation> split;
            synchronized (this) {
                cancelled = true;
                p = step;
                split = List.copyOf(branches);
            }
            if (p != null) {
                node.cancel(p, why);
            }
            split.forEach(b -> b.cancel(why));
            return exception(0);
        }

        /** The cancellation of a branch of a split of this chain: cancelled with it. */
        Cancellation branch() {
            Cancellation b = new Cancellation(node);
            boolean now;
            synchronized (this) {
                branches.add(b);
                now = cancelled;
            }
            if (now) {
                b.cancel("interactive chain cancelled");
            }
            return b;
        }

        private ChainException exception(int hop) {
            return LocatedFailure.detected(ChainErrorCode.CANCELLED,
                    "interactive chain cancelled by its originator; its step in flight was told to stop", node.name(),
                    hop, List.of()).toException();
        }
    }

    /** Interactive chains started through {@code launcher}. */
    public InteractiveChain(ChainLauncher launcher) {
        this.launcher = launcher;
    }

    /**
     * Runs chain {@code start} on the calling thread and waits until it is finished; replies are
     * collected in the result, each told to {@code tap} as it is delivered.
     */
    public ChainResult runCollecting(ChainStart start, StepMode mode, ReplyTap tap) {
        return runCollecting(start, new Cancellation(launcher.node()), mode, tap);
    }

    private ChainResult runCollecting(ChainStart start, Cancellation cancellation, StepMode mode, ReplyTap tap) {
        List<Object> collected = Collections.synchronizedList(new ArrayList<>());
        Run run = run(start, tap.tapping((value, hop, host, from) -> collected.add(value)), cancellation, mode);
        ChainLauncher.join(run.finished().handle((v, e) -> {
            if (run.error() != null) {
                throw run.error();
            }
            if (e != null) {
                throw (RuntimeException) Node.unwrap(e);
            }
            return v;
        }));
        return run.result().withReplies(collected);
    }

    /**
     * Runs chain {@code start} on the node's executor; the future completes like
     * {@link ChainLauncher#start}'s, and cancelling it cancels the chain. Each reply is told to {@code tap}.
     */
    public CompletableFuture<ChainResult> start(ChainStart start, StepMode mode, ReplyTap tap) {
        Cancellation cancellation = new Cancellation(launcher.node());
        CompletableFuture<ChainResult> out = new CancellableFuture<>(() -> cancellation.cancel("its future was cancelled"));
        launcher.node().executor().execute(() -> {
            try {
                out.complete(runCollecting(start, cancellation, mode, tap));
            } catch (RuntimeException | Error e) {
                out.completeExceptionally(e);
            }
        });
        return out;
    }

    /**
     * Runs chain {@code start} on the node's executor, handing replies to {@code replies} as they
     * arrive; returns what cancels it (it also ends the set).
     */
    public Runnable startWithReplies(BufferedReplySet<?> replies, ChainStart start, StepMode mode) {
        return startWithReplies(replies, start, mode, UnaryOperator.identity());
    }

    /**
     * As {@link #startWithReplies(BufferedReplySet, ChainStart, StepMode)}, with the chain's failures
     * (of its result and of its end) told to {@code replies} as {@code errors} turns them.
     */
    public Runnable startWithReplies(BufferedReplySet<?> replies, ChainStart start, StepMode mode,
                                     UnaryOperator<Throwable> errors) {
        Cancellation cancellation = new Cancellation(launcher.node());
        launcher.node().executor().execute(() -> {
            Run run;
            try {
                run = run(start, replies.sink(), cancellation, mode);
            } catch (RuntimeException | Error e) {
                replies.resultFailed(errors.apply(e));
                replies.finished(null);
                return;
            }
            if (run.error() != null) {
                replies.resultFailed(errors.apply(run.error()));
            } else {
                replies.resultArrived(run.result());
            }
            run.finished().whenComplete((v, e) -> replies.finished(e == null ? null : errors.apply(Node.unwrap(e))));
        });
        return () -> replies.finished(cancellation.cancel("ReplySet.cancel()"));
    }

    private Run run(ChainStart start, ChainOriginator.ReplySink sink, Cancellation cancellation, StepMode mode) {
        return run(start, sink, cancellation, mode, ChainPosition.FIRST, List.of(), List.of());
    }

    /**
     * Runs chain {@code start} from {@code at} (its first hop's number, the path before it, and its
     * branch: a split's branch, see {@link InteractiveSplit}), after {@code firstConsole} and
     * {@code firstTimings}, its replies to {@code sink}, cancelled by {@code cancellation}, its steps
     * launched as {@code mode} says.
     */
    Run run(ChainStart start, ChainOriginator.ReplySink sink, Cancellation cancellation, StepMode mode,
            ChainPosition at, List<ConsoleLine> firstConsole, List<HopTiming> firstTimings) {
        Duration timeout = start.timeout();
        Instant deadline = start.deadline();
        int maxHops = start.maxHops();
        BranchId branch = at.branch();
        String server = start.server();
        String serviceFunction = start.serviceFunction();
        Object params = start.params();
        ChainState state = start.state();
        Node node = launcher.node();
        long startNanos = System.nanoTime();
        long deadlineNanos = startNanos + timeout.toNanos();
        List<String> path = at.path();
        List<ConsoleLine> console = new CopyOnWriteArrayList<>(firstConsole);
        List<HopTiming> timings = CarriedTimings.continuing(firstTimings); // bounded, as a chain carries them
        List<CompletableFuture<Void>> finishes = new ArrayList<>();
        LocalWork local = new LocalWork(); // its one unit is the driver's own, released at the end
        ReplyWindow window = sink.window(); // one window for every step: the bound holds across them
        finishes.add(local.quiet());
        ChainingFunctionSource current = start.chainingFunction();
        NextHopDecision decisions = NextHopDecision.of(node);
        List<StateChoice> choices = new ArrayList<>(); // the adaptive state fall-back's, in hop order
        try {
            // a step whose service function started a sub-chain (which runs at the servers: its chaining
            // functions are theirs, not the client's) took as many hops as the sub-chain, and a split as
            // many as its longest branch: the next hop is numbered after the last one, as in chain mode
            for (int hop = at.hop(); ; hop = timings.getLast().hop() + 1) {
                cancellation.check(hop);
                long left = deadlineNanos - System.nanoTime();
                if (left <= 0) {
                    throw ChainErrors.toException(ChainErrorCode.TIMEOUT, new ChainFailure(
                            ChainErrors.exceptionName(ChainErrorCode.TIMEOUT), "no result within " + timeout.toMillis()
                            + " ms", node.name(), hop, path, List.of(),
                            console, timings));
                }
                StateChoice choice = null;
                if (mode.adaptive() != null && !current.isNone() && branch.isRoot() && !mode.diagnosing()) {
                    choice = mode.adaptive().choose(node, hop, server, current, state);
                    choices.add(choice);
                }
                boolean carried = choice != null && choice.carried();
                // carried: the state goes with the hop and the chain goes on in chain mode from there
                ChainStart stepStart = carried
                        ? start.continuing(new NextHop.Call(server, serviceFunction, params, current, state),
                                Duration.ofNanos(left)).withMaxHops(maxHops)
                        : start.step(server, serviceFunction, params, Duration.ofNanos(left), mode.heartbeats());
                ChainPosition stepAt = new ChainPosition(hop, path, branch);
                long launchedNanos = System.nanoTime();
                ChainOriginator.Pending step = node.launch(stepStart, stepAt, sink, mode.rerunOf());
                finishes.add(step.finished());
                cancellation.stepping(step);
                ChainOriginator.Arrival arrival;
                try {
                    arrival = ChainLauncher.join(step.outcome());
                    if (mode.diagnosing()) { // the next step reuses the chain's id: this one must be over first
                        step.finished().handle((v, e) -> null).join();
                    }
                } catch (ChainException e) {
                    throw ChainDiagnosis.whereItStops(e, stepStart, stepAt, console, timings, mode);
                }
                List<String> before = path;
                path = arrival.frame().path();
                console.addAll(arrival.frame().console());
                ChainResult stepResult = launcher.toResult(arrival.frame(), 0, true);
                List<HopTiming> stepTimings = arrival.frame().timings();
                if (carried) { // the chain ran to its end in chain mode
                    timings.addAll(stepTimings);
                    if (path.size() > before.size()) {
                        mode.adaptive().carried(node, current, choice, path.subList(before.size(), path.size()),
                                stepTimings, arrival.arrivedNanos() - launchedNanos);
                    }
                    return finish(result(stepResult.value(), node, path, console, timings, startNanos, choices), null,
                            finishes, local, maxHops);
                }
                timings.addAll(stepTimings.subList(0, stepTimings.size() - 1)); // a sub-chain's hops, if any
                HopTiming timing = stepTimings.getLast();
                hop = timing.hop(); // after a sub-chain, the chaining function runs as its last hop, as in chain mode
                if (current.isNone()) {
                    timings.add(timing);
                    return finish(result(stepResult.value(), node, path, console, timings, startNanos, choices), null,
                            finishes, local, maxHops);
                }
                NextHop next;
                long loadNanos = 0;
                long cfStart = System.nanoTime();
                LocalReplies replies = new LocalReplies(sink, window, node.settings().replyWriteTimeout(), node.name(),
                        hop, local, cancellation);
                HopControl control;
                try {
                    FunctionRuntime.Loaded loaded = node.functions().load(current);
                    loadNanos = loaded.loadNanos();
                    cfStart = System.nanoTime();
                    VirtualConsole cfConsole = new VirtualConsole(hop, node.name(), "chaining", console);
                    long budget = Node.budgetNanos(Duration.ofNanos(deadlineNanos - System.nanoTime()), deadline);
                    control = new HopControl(System.nanoTime(), budget);
                    HopLocation here = new HopLocation(node.name() + "#interactive", node.name(), hop, branch,
                            node.name());
                    try (var scope = new HopContext(here, cfConsole, replies, start.metadata(), control).push()) {
                        next = node.functions().invoke(loaded.function(), state, stepResult.value());
                    }
                } catch (HopFailure f) {
                    timings.add(timing.withChaining(loadNanos, System.nanoTime() - cfStart, node.name()));
                    throw ChainLauncher.failure(f, node.name(), hop, path, console, timings);
                }
                timings.add(timing.withChaining(loadNanos, System.nanoTime() - cfStart, node.name()));
                // the step is relaunched from here with what is left of the timeout and deadline
                NextHopDecision.Action action = decisions.decide(next, hop, maxHops, current,
                        control.remainingNanos(System.nanoTime()), List.of());
                while (action instanceof NextHopDecision.StartSplit split) { // the client is every merge host too
                    InteractiveSplit.Merged merged = new InteractiveSplit(this, node, sink, cancellation, finishes,
                            start, mode).run(split, new ChainPosition(hop, path, branch), console, timings,
                                    deadlineNanos);
                    path = merged.path();
                    hop = merged.hop();
                    current = merged.mergeFunction();
                    maxHops = merged.maxHops(); // what the branches left: the chain goes on with that
                    start = start.withMaxHops(maxHops);
                    action = merged.next();
                }
                switch (action) {
                    case NextHopDecision.Finish finish -> {
                        return finish(result(finish.result(), node, path, console, timings, startNanos, choices), null,
                                finishes, local, maxHops);
                    }
                    case NextHopDecision.Forward onward -> {
                        if (mode.adaptive() != null) {
                            mode.adaptive().sawNext(current, server, onward.server());
                        }
                        server = onward.server();
                        serviceFunction = onward.serviceFunction();
                        params = onward.params();
                        state = onward.state();
                        current = onward.chainingFunction();
                    }
                    case NextHopDecision.Fail fail -> throw ChainLauncher.failure(fail.failure(), node.name(), hop,
                            path, console, timings);
                    // the client's chain returns to no creator, and only service functions start sub-chains
                    case NextHopDecision.StartSubChain s -> throw new IllegalStateException("unexpected " + s);
                    case NextHopDecision.StartSplit s -> throw new IllegalStateException("unexpected " + s);
                    case NextHopDecision.ReturnToCreator r -> throw new IllegalStateException("unexpected " + r);
                    case NextHopDecision.RunChainingFunction r -> throw new IllegalStateException("unexpected " + r);
                }
            }
        } catch (ChainException e) {
            // cancelled: whatever failed since (a chaining function whose preturn threw, a step's
            // outcome) failed because of the cancel, which is what the chain ends with
            return finish(null, cancellation.cancelledOr(e), finishes, local, maxHops);
        }
    }

    /**
     * The result of a run that ended with {@code value}: interactive unless every choice of an
     * adaptive run carried the state (then every chaining function ran at the servers).
     */
    private static ChainResult result(Object value, Node node, List<String> path, List<ConsoleLine> console,
                                      List<HopTiming> timings, long startNanos, List<StateChoice> choices) {
        boolean here = choices.isEmpty() || choices.stream().anyMatch(c -> !c.carried());
        return new ChainResult(value, node.name(), path, console, timings, Duration.ofNanos(System.nanoTime() - startNanos),
                here, List.of(), choices);
    }

    private static Run finish(ChainResult result, ChainException error, List<CompletableFuture<Void>> finishes,
                              LocalWork local, int maxHops) {
        local.release();
        return new Run(result, error, CompletableFuture.allOf(finishes.toArray(CompletableFuture[]::new)), maxHops);
    }
}
