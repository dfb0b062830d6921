package io.rpcc.client.internal;

import io.rpcc.core.ChainResult;
import io.rpcc.core.ChainState;
import io.rpcc.core.ChainTimeoutException;
import io.rpcc.core.ChainingFunctionSource;
import io.rpcc.core.ConsoleLine;
import io.rpcc.core.HopTiming;
import io.rpcc.core.NextHop;
import io.rpcc.core.VirtualConsole;
import io.rpcc.core.internal.chain.CurrentContext;
import io.rpcc.core.internal.chain.HopContext;
import io.rpcc.core.internal.chain.Node;
import io.rpcc.core.internal.function.FunctionRuntime;
import io.rpcc.core.internal.wire.ErrorCode;
import io.rpcc.core.internal.wire.HopFailure;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * Interactive mode (paper section 3.7): every chaining function runs at the client, so the chain
 * becomes a series of plain RPCs. Each server runs only its service function and returns the result
 * here; the client applies the chaining function and calls the next hop. Results are identical to
 * chain mode, and the chaining functions can be stepped through in a debugger. This is also the
 * plain-RPC baseline for benchmarks.
 */
public final class InteractiveChain {
    private final ChainLauncher launcher;

    /** Interactive chains started through {@code launcher}. */
    public InteractiveChain(ChainLauncher launcher) {
        this.launcher = launcher;
    }

    /** Runs a chain interactively; the future completes like {@link ChainLauncher#start}'s. */
    public CompletableFuture<ChainResult> start(String server, String serviceFunction, Object params,
                                               ChainingFunctionSource cf, ChainState state, Duration timeout,
                                               int maxHops) {
        CompletableFuture<ChainResult> out = new CompletableFuture<>();
        launcher.node().executor().execute(() -> {
            try {
                out.complete(run(server, serviceFunction, params, cf, state, timeout, maxHops));
            } catch (CompletionException e) {
                out.completeExceptionally(e.getCause());
            } catch (RuntimeException | Error e) {
                out.completeExceptionally(e);
            }
        });
        return out;
    }

    /** Runs a chain interactively on the calling thread; throws a {@code ChainException} on failure. */
    public ChainResult run(String server, String serviceFunction, Object params, ChainingFunctionSource cf,
                            ChainState state, Duration timeout, int maxHops) {
        Node node = launcher.node();
        long start = System.nanoTime();
        long deadline = start + timeout.toNanos();
        List<String> path = List.of();
        List<ConsoleLine> console = new CopyOnWriteArrayList<>();
        List<HopTiming> timings = new ArrayList<>();
        ChainingFunctionSource current = cf;
        for (int hop = 1; ; hop++) {
            long left = deadline - System.nanoTime();
            if (left <= 0) {
                throw new ChainTimeoutException(new io.rpcc.core.ChainFailure(ErrorCode.TIMEOUT.exceptionName(),
                        "no result within " + timeout.toMillis() + " ms", node.name(), hop, path, List.of(), console,
                        timings));
            }
            ChainLauncher.HopOutcome outcome;
            try {
                outcome = launcher.sendHop(server, serviceFunction, params, ChainingFunctionSource.NONE,
                        ChainState.empty(), Duration.ofNanos(left), hop, maxHops, path).join();
            } catch (CompletionException e) {
                throw e.getCause() instanceof RuntimeException re ? re : e;
            }
            path = outcome.frame().path();
            console.addAll(outcome.frame().console());
            ChainResult step = launcher.toResult(outcome.frame(), 0, true);
            HopTiming timing = outcome.frame().timings().getLast();
            if (current.isNone()) {
                timings.add(timing);
                return new ChainResult(step.value(), node.name(), path, console, timings,
                        Duration.ofNanos(System.nanoTime() - start), true);
            }
            NextHop next;
            long loadNanos = 0;
            long cfStart = System.nanoTime();
            try {
                FunctionRuntime.Loaded loaded = node.functions().load(current);
                loadNanos = loaded.loadNanos();
                cfStart = System.nanoTime();
                VirtualConsole cfConsole = new VirtualConsole(hop, node.name(), "chaining", console);
                try (var scope = CurrentContext.enter(new HopContext(node.name() + "#interactive", node.name(), hop,
                        node.name(), cfConsole))) {
                    next = FunctionRuntime.invoke(loaded.function(), state, step.value());
                }
            } catch (HopFailure f) {
                timings.add(timing.withChaining(loadNanos, System.nanoTime() - cfStart, node.name()));
                throw ChainLauncher.failure(f, node.name(), hop, path, console, timings);
            }
            timings.add(timing.withChaining(loadNanos, System.nanoTime() - cfStart, node.name()));
            switch (next) {
                case NextHop.End end -> {
                    return new ChainResult(end.result(), node.name(), path, console, timings,
                            Duration.ofNanos(System.nanoTime() - start), true);
                }
                case NextHop.Call call -> {
                    int limit = Math.min(maxHops, node.settings().maxHops());
                    if (hop + 1 > limit) {
                        throw ChainLauncher.failure(new HopFailure(ErrorCode.HOP_LIMIT_EXCEEDED,
                                "chain reached its hop limit of " + limit + " hops; not calling '"
                                        + call.serviceFunction() + "' at '" + call.server() + "'"),
                                node.name(), hop, path, console, timings);
                    }
                    server = call.server();
                    serviceFunction = call.serviceFunction();
                    params = call.params();
                    state = call.state();
                    current = call.chainingFunction().isSame() ? current : call.chainingFunction();
                }
            }
        }
    }
}
