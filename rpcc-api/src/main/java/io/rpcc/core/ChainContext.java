package io.rpcc.core;

import java.time.Instant;
import java.util.concurrent.Callable;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.Executor;
import org.jspecify.annotations.Nullable;

/**
 * What a service or chaining function can know about the chain it runs in, and what rpcc offers
 * it: the {@linkplain #console() virtual console} and partial replies ({@link #preturn}).
 *
 * <pre>{@code
 * server.service("search", query -> {
 *     ChainContext ctx = ChainContext.current();
 *     ctx.console().println("searching at hop " + ctx.hop());
 *     Executor pool = ctx.executor(searchPool);            // tasks keep the context
 *     for (Shard shard : shards) {
 *         pool.execute(() -> ChainContext.current().preturn(shard.search(query)));
 *     }
 *     return "searching " + shards.size() + " shards";     // replies keep coming after this
 * });
 * }</pre>
 *
 * <p>Work that may call {@link #preturn} after the function returns must be started through
 * {@link #wrap}, {@link #executor}, {@link #startThread} or {@link #startVirtualThread}: they keep
 * the context on the other thread and make the chain wait for the work to end (the partially
 * ordering protocol of Quatrain), so the originator's reply set ends exactly after the last reply.
 *
 * <p>Errors: what a task started this way throws ends the chain partial with that error, naming
 * this hop and node, like a service function that throws. A {@code CompletableFuture} stage is
 * different: the future catches what its function throws and keeps it as the stage's outcome,
 * which a later stage may handle ({@code exceptionally}, {@code handle}), so no executor ever sees
 * it. For a pipeline of stages, pass the future you keep to {@link #track}: the chain waits for it
 * and ends partial with its error if it fails (an error handled on the way is not one). A stage
 * whose function is wrapped with {@link #wrap} reports what that function throws, handled or not.
 *
 * <p>Logging: wherever a context is current (the function's thread, work started through it, a
 * {@link #push()}), the thread's SLF4J MDC carries the chain's id, the hop and the originator
 * ({@link ChainMdc}), and gets its previous values back when the context goes.
 */
public interface ChainContext {

    /**
     * The context of the chain that the current thread works for.
     *
     * @throws IllegalStateException if the thread is not running a service or chaining function
     */
    static ChainContext current() {
        ChainContext ctx = ChainContextStorage.get();
        if (ctx == null) {
            throw new IllegalStateException("ChainContext.current() called outside a service or chaining function: "
                    + "call it on the thread rpcc runs your function on, or hand the context to other threads "
                    + "with wrap(), executor(), startThread() or startVirtualThread()");
        }
        return ctx;
    }

    /** The context of the chain that the current thread works for, or {@code null} if it works for none. */
    static @Nullable ChainContext currentOrNull() {
        return ChainContextStorage.get();
    }

    /**
     * Makes this context the calling thread's current one until the returned scope is closed, which
     * restores the previous one. Prefer {@link #wrap(Runnable)} and {@link #executor(Executor)}, which also
     * make the chain wait for the work: a pushed context does not.
     *
     * <pre>
     * try (ChainContext.Scope ignored = ctx.push()) {
     *     library.call(); // sees ChainContext.current() == ctx
     * }
     * </pre>
     */
    default Scope push() {
        return ChainContextStorage.push(this);
    }

    /** The chain's id: the originator's name and a number, e.g. {@code "client-1#42"}. */
    String chainId();

    /** The name of the node that started the chain. */
    String originator();

    /** The index of this hop, starting at 1. */
    int hop();

    /** The name of the node running this code. */
    String node();

    /** The virtual console. */
    VirtualConsole console();

    /**
     * The chain's deadline on this node's clock: the earlier of the originator's
     * {@code ChainCall.deadline(...)} and its timeout, less the time the chain spent on the way here
     * (each node's own time plus its network allowance per crossing: the nodes' clocks need not
     * agree, only the remaining budget travels). Like gRPC's {@code Context.current().getDeadline()}:
     * pass {@code Duration.between(Instant.now(), deadline())} on to calls this function makes, or
     * give up early once it is past. Every chain started by {@code RpccClient} has one;
     * {@link Instant#MAX} if the chain has none. The next hop does not start once it is past: the
     * chain ends with a {@link DeadlineExceededException} naming that hop.
     */
    Instant deadline();

    /**
     * Whether the originator cancelled the chain ({@code future.cancel}, {@code ReplySet.cancel()} or
     * its timeout). When it becomes true, the threads working for this hop (this function's and those
     * started through this context) are interrupted, {@link #preturn} throws
     * {@link ChainCancelledException}, and the chain goes no further: the function's result is
     * dropped. Long loops that ignore interrupts should check it.
     */
    boolean isCancelled();

    /**
     * Sends a partial reply straight to the chain's originator, which reads it from its
     * {@code ReplySet} while the chain goes on. Callable any number of times, from the service
     * function, the chaining function (a "client response", paper 7.1) or any work started through
     * this context's wrappers. If the originator reads slower than replies are produced, this waits
     * (up to the server's reply write timeout, then throws {@link FlowControlException}; a cancel
     * ends the wait at once, on any thread; a sandboxed chaining function's wall time does not run
     * meanwhile).
     *
     * @throws IllegalStateException if the hop has ended (the reply came from a thread that was not
     *     started through this context)
     * @throws UnregisteredTypeException if the reply's class is not registered
     * @throws ChainCancelledException if the originator cancelled the chain
     */
    void preturn(Object reply);

    /**
     * Wraps {@code task} to run on another thread with this context; the chain waits for it (its
     * partial replies) before it is finished. The task must run exactly once.
     */
    Runnable wrap(Runnable task);

    /** Like {@link #wrap(Runnable)}, for a task with a result (e.g. for {@code ExecutorService.submit}). */
    <V> Callable<V> wrap(Callable<V> task);

    /**
     * An executor that runs tasks on {@code executor} with this context (each wrapped as by
     * {@link #wrap(Runnable)}). Use it with {@code CompletableFuture.runAsync(task, ctx.executor(pool))},
     * and {@link #track} the pipeline's future: a stage's error stays in its future, out of the
     * executor's sight.
     */
    Executor executor(Executor executor);

    /**
     * Makes the chain wait for {@code stage} (its partial replies) before it is finished, and end
     * partial with the stage's error, naming this hop and node, if it completes exceptionally (the
     * cause of a {@code CompletionException}). Pass the last future of a pipeline whose stages run on
     * {@link #executor(Executor)}: an error that a stage on the way handles is not reported.
     *
     * <pre>{@code
     * ctx.track(CompletableFuture.supplyAsync(() -> search(q), ctx.executor(pool))
     *         .thenAcceptAsync(hits -> ChainContext.current().preturn(hits), ctx.executor(pool)));
     * }</pre>
     *
     * @return {@code stage}
     * @throws IllegalStateException if the hop has ended
     */
    <S extends CompletionStage<?>> S track(S stage);

    /** Starts a platform thread that runs {@code task} with this context. */
    Thread startThread(Runnable task);

    /** Starts a virtual thread that runs {@code task} with this context. */
    Thread startVirtualThread(Runnable task);

    /**
     * The chain's metadata as this hop received it (credentials, trace context...): set by the
     * originator and its client interceptors, and changed on the way only by server interceptors
     * around forwarding. Read-only here: what a function computes for later hops goes into the
     * parameters and the {@link ChainState}.
     */
    Metadata metadata();

    /** The branch of the chain this hop is on: {@link BranchId#root()} until chains split. */
    BranchId branch();

    /**
     * Who asked for this hop: the chain's originator (verified by its signature between TLS nodes,
     * as claimed in plaintext), the previous hop and, in a nested sub-chain, its creator. A context
     * made outside a server's hop says the originator is {@link #originator()}, unverified, and the
     * previous hop is {@code "local"}.
     */
    default ChainCaller caller() {
        return new ChainCaller(originator(), false, "local", null);
    }

    /**
     * How isolated the server's chain policy wants this hop's functions to run
     * ({@link IsolationLevel#IN_PROCESS} unless a policy said otherwise).
     */
    default IsolationLevel isolation() {
        return IsolationLevel.IN_PROCESS;
    }

    /** A context made current by {@link #push()}; closing it restores the previous one. */
    @FunctionalInterface
    interface Scope extends AutoCloseable {
        /** Restores the context that was current before {@link #push()}; throws nothing. */
        @Override
        void close();
    }
}
