package io.rpcc.core;

import java.util.Objects;
import java.util.Optional;
import org.jspecify.annotations.Nullable;

/**
 * A nested sub-chain (paper 3.4, Fig. 4): what a {@link ServiceFunction} returns, instead of its
 * result, to have the result computed by a chain of its own. The server parks its hop (the
 * chain's chaining function and state) and starts the sub-chain at once, without any thread
 * waiting for it; the sub-chain runs from server to server with its own chaining function (the
 * creating server's logic, not the originator's), and when it ends, its result becomes the result
 * of the service function that started it: the parked chaining function runs at the creating
 * server with that result and the chain goes on. Sub-chains nest (a service function in a
 * sub-chain may start another) up to 64 levels.
 *
 * <pre>{@code
 * RpccServer.builder("storage")
 *     .service("write", block -> SubChain.to("replica", "store")   // the replica's result is write's result
 *             .params(block)
 *             .chainingFunction(ChainingFunctionSource.javaResource(Storage.class, "/chains/Replicate.java"))
 *             .state(ChainState.of("copies", 2)));
 * }</pre>
 *
 * <p>A sub-chain is part of its chain: it has the chain's id, metadata, deadline (what is left of
 * it), hop limit and hop numbers (its hops are hops of the chain and appear in its path), and
 * cancelling the chain stops it. A failure inside it goes first to the server that started it, whose
 * {@link #onFailure} handler may recover or pass it on (the default), up to the originator, typed and
 * naming the hop and host where it happened. Its partial replies go through the server that started
 * it ({@link #onReply}) to the chain's originator, or straight there ({@link #repliesToOriginator()}).
 * Immutable: each method returns a new sub-chain.
 *
 * <p>By default a sub-chain is <em>composed</em> with its parent (paper 3.4, Fig. 5c): the return
 * point pushed onto the chain's stack carries the parent's chaining function and state, so the node
 * where the sub-chain ends runs that chaining function itself and the chain goes on from there,
 * without returning to the creating server. {@link #composition(boolean) composition(false)} (or
 * the server's {@code subChainComposition(false)}) returns the result to the creating server
 * instead, as described above. Failures and replies reach the creating server either way.
 */
public final class SubChain {
    private final String server;
    private final String serviceFunction;
    private final @Nullable Object params;
    private final ChainingFunctionSource chainingFunction;
    private final ChainState state;
    private final @Nullable Boolean composition;
    private final @Nullable SubChainFailureHandler failureHandler;
    private final @Nullable SubChainReplyHandler replyHandler;
    private final boolean repliesToOriginator;

    private SubChain(String server, String serviceFunction, @Nullable Object params,
                     ChainingFunctionSource chainingFunction, ChainState state, @Nullable Boolean composition,
                     @Nullable SubChainFailureHandler failureHandler, @Nullable SubChainReplyHandler replyHandler,
                     boolean repliesToOriginator) {
        this.server = server;
        this.serviceFunction = serviceFunction;
        this.params = params;
        this.chainingFunction = chainingFunction;
        this.state = state;
        this.composition = composition;
        this.failureHandler = failureHandler;
        this.replyHandler = replyHandler;
        this.repliesToOriginator = repliesToOriginator;
    }

    /**
     * A sub-chain whose first hop calls {@code serviceFunction} at {@code server}, with no parameters
     * and no chaining function (so that service function's result is the sub-chain's result) until
     * set.
     */
    public static SubChain to(String server, String serviceFunction) {
        return new SubChain(Objects.requireNonNull(server, "server"),
                Objects.requireNonNull(serviceFunction, "serviceFunction"), null, ChainingFunctionSource.NONE,
                ChainState.empty(), null, null, null, false);
    }

    /** This sub-chain with {@code params} for its first service function. */
    public SubChain params(@Nullable Object params) {
        return new SubChain(server, serviceFunction, params, chainingFunction, state, composition, failureHandler,
                replyHandler, repliesToOriginator);
    }

    /**
     * This sub-chain with {@code chainingFunction} run after its first service function (and kept
     * by its next hops unless they name another), or {@link ChainingFunctionSource#NONE} to end the
     * sub-chain with that service function's result.
     *
     * @throws IllegalArgumentException for {@link ChainingFunctionSource#SAME}: a sub-chain starts
     *     from a service function, which has no chaining function to keep
     */
    public SubChain chainingFunction(ChainingFunctionSource chainingFunction) {
        Objects.requireNonNull(chainingFunction, "chainingFunction");
        if (chainingFunction.isSame()) {
            throw new IllegalArgumentException("a sub-chain needs a chaining function of its own (or NONE): "
                    + "ChainingFunctionSource.SAME would keep the chaining function of a service function, which has none");
        }
        return new SubChain(server, serviceFunction, params, chainingFunction, state, composition, failureHandler,
                replyHandler, repliesToOriginator);
    }

    /** This sub-chain with {@code state} for its chaining function. */
    public SubChain state(ChainState state) {
        return new SubChain(server, serviceFunction, params, chainingFunction, Objects.requireNonNull(state, "state"),
                composition, failureHandler, replyHandler, repliesToOriginator);
    }

    /**
     * This sub-chain composed with its parent chain or not, whatever the server's setting
     * ({@code RpccServer.Builder.subChainComposition}, on by default). Composed (paper 3.4, Fig. 5c),
     * the return point carries the parent's chaining function and state, and the node where the
     * sub-chain ends runs that chaining function itself: the chain goes on from there, without going
     * back to this server. Not composed, this server keeps them and the sub-chain's result comes
     * back here, where the parent chain goes on. Result, path and hop numbers are the same either
     * way; composition saves a crossing and keeps the result's bytes off this server.
     */
    public SubChain composition(boolean on) {
        return new SubChain(server, serviceFunction, params, chainingFunction, state, on, failureHandler, replyHandler,
                repliesToOriginator);
    }

    /**
     * This sub-chain with {@code handler} deciding, at the server that starts it, what becomes of
     * its failure (paper 3.8): recover with a result for the parent chain, or pass the failure on.
     * Without one, a failure is passed on: to the enclosing sub-chain's creator, else the originator.
     * A recovery resumes the starting hop's chaining function, with its state, at that server: so
     * even a composed sub-chain's server keeps the hop for its handler, until the sub-chain ends
     * there or the chain's deadline plus 5 s has passed.
     */
    public SubChain onFailure(SubChainFailureHandler handler) {
        return new SubChain(server, serviceFunction, params, chainingFunction, state, composition,
                Objects.requireNonNull(handler, "handler"), replyHandler, repliesToOriginator);
    }

    /**
     * This sub-chain with {@code handler} seeing its partial replies at the server that starts it
     * (paper 7.1), which passes on to its own originator what it chooses. Without one, every reply is
     * passed on unchanged. Replaces {@link #repliesToOriginator()}.
     */
    public SubChain onReply(SubChainReplyHandler handler) {
        return new SubChain(server, serviceFunction, params, chainingFunction, state, composition, failureHandler,
                Objects.requireNonNull(handler, "handler"), false);
    }

    /**
     * This sub-chain with its partial replies going straight to the chain's top-level originator,
     * not through the server that starts it (no {@link #onReply} handler sees them). Replaces
     * {@link #onReply}.
     */
    public SubChain repliesToOriginator() {
        return new SubChain(server, serviceFunction, params, chainingFunction, state, composition, failureHandler, null,
                true);
    }

    /** The handler of its failure, or {@code null}: passed on. */
    public @Nullable SubChainFailureHandler failureHandler() {
        return failureHandler;
    }

    /** The handler of its partial replies at its creator, or {@code null}: passed on unchanged. */
    public @Nullable SubChainReplyHandler replyHandler() {
        return replyHandler;
    }

    /** Whether its partial replies go straight to the top-level originator rather than through its creator. */
    public boolean sendsRepliesToOriginator() {
        return repliesToOriginator;
    }

    /** The server of the sub-chain's first hop. */
    public String server() {
        return server;
    }

    /** The service function of its first hop. */
    public String serviceFunction() {
        return serviceFunction;
    }

    /** That service function's parameters. */
    public @Nullable Object params() {
        return params;
    }

    /** The sub-chain's chaining function, or {@link ChainingFunctionSource#NONE}. */
    public ChainingFunctionSource chainingFunction() {
        return chainingFunction;
    }

    /** The state for its chaining function. */
    public ChainState state() {
        return state;
    }

    /** Whether this sub-chain is composed with its parent, if set here; empty: as the server says. */
    public Optional<Boolean> composition() {
        return Optional.ofNullable(composition);
    }

    /** The sub-chain's first hop, as a chaining function would name it. */
    public NextHop.Call firstHop() {
        return NextHop.call(server, serviceFunction, params, chainingFunction, state);
    }

    @Override
    public String toString() {
        return "SubChain[" + serviceFunction + " at " + server + ", then " + chainingFunction
                + (composition == null ? "" : composition ? ", composed" : ", not composed") + "]";
    }
}
