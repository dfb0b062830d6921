package io.rpcc.client.internal;

import io.rpcc.core.BranchId;
import io.rpcc.core.BranchOutcome;
import io.rpcc.core.ChainException;
import io.rpcc.core.HopPath;
import io.rpcc.core.ChainFailure;
import io.rpcc.core.ChainingFunctionSource;
import io.rpcc.core.ConsoleLine;
import io.rpcc.core.HopTiming;
import io.rpcc.core.Metadata;
import io.rpcc.core.NextHop;
import io.rpcc.core.VirtualConsole;
import io.rpcc.core.internal.chain.ChainOriginator;
import io.rpcc.core.internal.chain.ChainPosition;
import io.rpcc.core.internal.chain.ChainStart;
import io.rpcc.core.internal.chain.HopContext;
import io.rpcc.core.internal.chain.HopControl;
import io.rpcc.core.internal.chain.HopLocation;
import io.rpcc.core.internal.chain.NextHopDecision;
import io.rpcc.core.internal.chain.Node;
import io.rpcc.core.internal.chain.RethrownBranchFailure;
import io.rpcc.core.internal.function.FunctionRuntime;
import io.rpcc.core.internal.wire.CarriedTimings;
import io.rpcc.core.internal.wire.ChainErrors;
import io.rpcc.core.internal.wire.HopFailure;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;

/**
 * A split in interactive mode (paper 3.10 with 3.7): the client plays the merge host. Each branch
 * runs as an interactive chain of its own, on a virtual thread, from the split's next hop on, on its
 * branch id; the client waits for all of them (on the interactive chain's own thread: no server
 * thread waits) and runs the merge function itself, or the default merge, with the same outcomes,
 * path and failures (messages naming the branch) as chain mode.
 */
final class InteractiveSplit {
    /**
     * What the merge made of the split.
     *
     * @param path the path after the merge: up to the split, then each branch's hops in branch order
     * @param hop the number of the merge (that of the branches' last hop)
     * @param mergeFunction the chaining function from here on (the merge function)
     * @param next what to do next
     */
    record Merged(List<String> path, int hop, ChainingFunctionSource mergeFunction, NextHopDecision.Action next,
                  int maxHops) {
    }

    private final InteractiveChain chain;
    private final Node node;
    private final ChainOriginator.ReplySink sink;
    private final InteractiveChain.Cancellation cancellation;
    private final List<CompletableFuture<Void>> finishes;
    private final ChainStart chainStart;
    private final StepMode mode;

    /**
     * A split of interactive chain {@code chainStart} started at {@code node}, whose replies go to
     * {@code sink}, that {@code cancellation} cancels and that is finished when all of
     * {@code finishes} are (the branches' are added); its steps are launched as {@code mode} says.
     */
    InteractiveSplit(InteractiveChain chain, Node node, ChainOriginator.ReplySink sink,
                     InteractiveChain.Cancellation cancellation, List<CompletableFuture<Void>> finishes,
                     ChainStart chainStart, StepMode mode) {
        this.chain = chain;
        this.node = node;
        this.sink = sink;
        this.cancellation = cancellation;
        this.finishes = finishes;
        this.chainStart = chainStart;
        this.mode = mode;
    }

    /**
     * Runs {@code split}, made by the chaining function of the hop at {@code at} (its number, the path
     * before it, its branch); adds the branches' console lines and timings to {@code console} and
     * {@code timings}; throws the chain's failure if the default merge fails or the merge function
     * does. The call's time is up at {@code deadlineNanos} ({@link System#nanoTime()}).
     */
    Merged run(NextHopDecision.StartSplit split, ChainPosition at, List<ConsoleLine> console, List<HopTiming> timings,
               long deadlineNanos) {
        int hop = at.hop();
        List<String> path = at.path();
        BranchId branch = at.branch();
        Metadata metadata = chainStart.metadata();
        Instant deadline = chainStart.deadline();
        long start = System.nanoTime();
        List<NextHop.Call> calls = split.split().branches();
        int n = calls.size();
        List<CompletableFuture<InteractiveChain.Run>> runs = new ArrayList<>(n);
        List<ConsoleLine> consoleAtSplit = List.copyOf(console);
        List<HopTiming> timingsAtSplit = List.copyOf(timings);
        for (int i = 0; i < n; i++) {
            NextHop.Call call = calls.get(i);
            ChainingFunctionSource cf = split.branchFunctions().get(i);
            int share = split.branchMaxHops().get(i); // its share of the hops left
            BranchId on = branch.child(i + 1, n);
            InteractiveChain.Cancellation c = cancellation.branch();
            CompletableFuture<InteractiveChain.Run> run = new CompletableFuture<>();
            Thread.startVirtualThread(() -> {
                try {
                    ChainStart branchStart = chainStart.continuing(new NextHop.Call(call.server(),
                            call.serviceFunction(), call.params(), cf, call.state()),
                            Duration.ofNanos(Math.max(1, deadlineNanos - System.nanoTime())))
                            .withMaxHops(share);
                    run.complete(chain.run(branchStart, sink, c, mode.withoutAdaptive(), new ChainPosition(split.hop(), path, on),
                            consoleAtSplit, timingsAtSplit));
                } catch (RuntimeException | Error e) {
                    run.completeExceptionally(e);
                }
            });
            runs.add(run);
            if (mode.diagnosing()) { // its steps share the chain's id with the other branches': one at a time
                run.handle((r, e) -> null).join();
            }
        }
        List<String> merged = new ArrayList<>(path);
        long visitedAtSplit = HopPath.visited(path);
        List<BranchOutcome> outcomes = new ArrayList<>(n);
        List<Object> values = new ArrayList<>(n);
        ChainException firstFailure = null;
        int last = hop;
        long unused = 0; // of the branches' shares of the chain's hops: the chain goes on with them
        for (int i = 0; i < n; i++) {
            InteractiveChain.Run run = ChainLauncher.join(runs.get(i));
            finishes.add(run.finished());
            BranchId on = branch.child(i + 1, n);
            if (run.error() == null) {
                merged.addAll(HopPath.after(run.result().path(), visitedAtSplit));
                console.addAll(tail(run.result().console(), consoleAtSplit.size()));
                timings.addAll(CarriedTimings.since(run.result().timings(), timingsAtSplit));
                last = Math.max(last, run.result().timings().getLast().hop());
                unused += Math.max(0, (long) run.maxHops() - run.result().timings().getLast().hop());
                outcomes.add(BranchOutcome.success(i + 1, on, run.result().value()));
                values.add(run.result().value());
            } else {
                ChainException e = named(run.error(), on, n);
                merged.addAll(HopPath.after(e.path(), visitedAtSplit));
                console.addAll(tail(e.console(), consoleAtSplit.size()));
                timings.addAll(CarriedTimings.since(e.timings(), timingsAtSplit));
                last = Math.max(last, e.hop());
                unused += Math.max(0, (long) run.maxHops() - e.hop());
                outcomes.add(BranchOutcome.failure(i + 1, on, e));
                if (firstFailure == null) {
                    firstFailure = e;
                }
            }
        }
        merged = new ArrayList<>(HopPath.bounded(merged));
        int maxHops = NextHopDecision.mergedLimit(last, unused);
        HopTiming timing = new HopTiming(last, node.name(), "rpcc.merge", System.nanoTime() - start, 0, 0, 0,
                node.name());
        NextHopDecision decisions = NextHopDecision.of(node);
        long budget = Node.budgetNanos(Duration.ofNanos(deadlineNanos - System.nanoTime()), deadline);
        ChainingFunctionSource mergeFunction = split.mergeFunction();
        if (mergeFunction.isNone()) {
            timings.add(timing);
            if (firstFailure != null) {
                throw firstFailure;
            }
            return new Merged(merged, last, mergeFunction,
                    decisions.decide(NextHop.end(values), last, maxHops, mergeFunction, budget, List.of()), maxHops);
        }
        long loadNanos = 0;
        long cfStart = System.nanoTime();
        NextHop next;
        LocalWork work = new LocalWork();
        finishes.add(work.quiet());
        LocalReplies local = new LocalReplies(sink, sink.window(), node.settings().replyWriteTimeout(), node.name(),
                last, work, cancellation);
        try {
            cancellation.check(last);
            FunctionRuntime.Loaded loaded = node.functions().load(mergeFunction);
            loadNanos = loaded.loadNanos();
            cfStart = System.nanoTime();
            VirtualConsole cfConsole = new VirtualConsole(last, node.name(), "chaining", console);
            HopControl control = new HopControl(System.nanoTime(), budget);
            HopLocation here = new HopLocation(node.name() + "#interactive", node.name(), last, branch, node.name());
            try (var scope = new HopContext(here, cfConsole, local, metadata, control).push()) {
                next = node.functions().invoke(loaded.function(), split.split().state(), List.copyOf(outcomes));
            }
        } catch (HopFailure f) {
            timings.add(timing.withChaining(loadNanos, System.nanoTime() - cfStart, node.name()));
            if (RethrownBranchFailure.of(f, outcomes, node.name(), last) instanceof RethrownBranchFailure r) {
                throw r.located(console, timings).toException(); // named where the branch failed, as in chain mode
            }
            throw ChainLauncher.failure(f, node.name(), last, merged, console, timings);
        } finally {
            work.release();
        }
        timings.add(timing.withChaining(loadNanos, System.nanoTime() - cfStart, node.name()));
        return new Merged(merged, last, mergeFunction, decisions.decide(next, last, maxHops, mergeFunction,
                Node.budgetNanos(Duration.ofNanos(deadlineNanos - System.nanoTime()), deadline), List.of()), maxHops);
    }

    /** {@code e} with its message naming branch {@code on} of {@code n}, as chain mode's merge host sees it. */
    private static ChainException named(ChainException e, BranchId on, int n) {
        ChainFailure f = e.failure();
        String message = f.message() == null ? "" : f.message();
        if (message.startsWith("[branch ")) {
            return e;
        }
        return ChainErrors.toException(e.code(), new ChainFailure(f.exceptionName(), "[branch " + on
                + " of " + n + "] " + message, f.host(), f.hop(), f.path(), f.details(), f.console(), f.timings(),
                f.fields()));
    }

    private static <T> List<T> tail(List<T> list, int from) {
        return list.subList(Math.min(from, list.size()), list.size());
    }
}
