package io.rpcc.client;

import io.rpcc.core.ChainState;
import io.rpcc.core.ChainingFunctionSource;
import io.rpcc.core.Metadata;
import io.rpcc.core.MetadataTooLargeException;
import io.rpcc.core.NextHop;
import io.rpcc.core.SequentialChain;
import io.rpcc.core.StaticRoute;
import io.rpcc.core.UnstableApi;
import io.rpcc.core.spi.SequentialReplay;
import java.io.InputStream;
import java.time.Duration;
import java.time.Instant;
import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * Everything needed to start one chain: the first server and service function, its params, the
 * chaining function and state, and per-call options. Immutable; each setter returns a copy.
 *
 * <pre>{@code
 * ChainCall call = ChainCall.to("gateway", "region")
 *     .params(order)
 *     .chainingFunction(route)
 *     .state(ChainState.of("sku", order.sku()))
 *     .timeout(Duration.ofSeconds(2))
 *     .deadline(Duration.ofMillis(500))  // hops that would start later are refused
 *     .metadata("tenant", "acme")  // travels with the chain to every hop
 *     .heartbeats(Heartbeats.every(Duration.ofSeconds(1), Duration.ofSeconds(2)))  // broken after 2 s of silence
 *     .interactive(true);          // run every chaining function here, as plain RPCs
 * ChainResult r = client.startChain(call).join();
 * }</pre>
 *
 * @param server the first server
 * @param serviceFunction the service function to call there
 * @param params its parameters
 * @param chainingFunction the chaining function to run after it, or {@link ChainingFunctionSource#NONE}
 *     for a plain call
 * @param state the state for the chaining function
 * @param timeout how long to wait for the result, or {@code null} for the client's default
 * @param maxHops the hop limit, or 0 for the client's default
 * @param interactive whether to run in interactive mode, or {@code null} for the client's default
 * @param metadata the chain's metadata, which every hop can read ({@code ChainContext.metadata()})
 * @param deadline when the chain must be done, on this node's clock, or {@code null}: the timeout alone
 * @param heartbeats how the chain's heartbeats are watched, or {@code null} for the client's default
 * @param retry how the chain is sent again when it fails in a way that may pass, or {@code null} for the
 *     client's default ({@code RpccClient.Builder.retryPolicy})
 * @param stateFallback whether the state may stay at the client when it is too large to carry
 *     ({@link StateFallback}), or {@code null} for the client's default
 * @param stream the data the first service function (a {@code StreamingServiceFunction}) reads as it
 *     arrives, or {@code null}: none (see {@link #stream(InputStream)})
 * @param atomicChain whether the chain is atomic: one transaction across all its hops (see {@link #atomic()})
 * @param atomicCompletion when an atomic chain's future completes with its result (see
 *     {@link #atomic(AtomicCompletion)}); {@code null} is {@link AtomicCompletion#APPLIED}
 */
public record ChainCall(String server, String serviceFunction, @Nullable Object params,
                        ChainingFunctionSource chainingFunction, ChainState state, @Nullable Duration timeout,
                        int maxHops, @Nullable Boolean interactive, Metadata metadata, @Nullable Instant deadline,
                        @Nullable Heartbeats heartbeats, @Nullable RetryPolicy retry,
                        @Nullable StateFallback stateFallback, @Nullable InputStream stream, boolean atomicChain,
                        AtomicCompletion atomicCompletion) {

    /** A call without a data stream. */
    public ChainCall(String server, String serviceFunction, @Nullable Object params,
                     ChainingFunctionSource chainingFunction, ChainState state, @Nullable Duration timeout,
                     int maxHops, @Nullable Boolean interactive, Metadata metadata, @Nullable Instant deadline,
                     @Nullable Heartbeats heartbeats, @Nullable RetryPolicy retry,
                     @Nullable StateFallback stateFallback) {
        this(server, serviceFunction, params, chainingFunction, state, timeout, maxHops, interactive, metadata, deadline,
                heartbeats, retry, stateFallback, null, false, AtomicCompletion.APPLIED);
    }

    /** A call that is not {@linkplain #atomic() atomic}. */
    public ChainCall(String server, String serviceFunction, @Nullable Object params,
                     ChainingFunctionSource chainingFunction, ChainState state, @Nullable Duration timeout,
                     int maxHops, @Nullable Boolean interactive, Metadata metadata, @Nullable Instant deadline,
                     @Nullable Heartbeats heartbeats, @Nullable RetryPolicy retry,
                     @Nullable StateFallback stateFallback, @Nullable InputStream stream) {
        this(server, serviceFunction, params, chainingFunction, state, timeout, maxHops, interactive, metadata, deadline,
                heartbeats, retry, stateFallback, stream, false, AtomicCompletion.APPLIED);
    }

    /** A call whose atomic chain, if {@code atomicChain}, completes once its commit is {@linkplain AtomicCompletion#APPLIED applied}. */
    public ChainCall(String server, String serviceFunction, @Nullable Object params,
                     ChainingFunctionSource chainingFunction, ChainState state, @Nullable Duration timeout,
                     int maxHops, @Nullable Boolean interactive, Metadata metadata, @Nullable Instant deadline,
                     @Nullable Heartbeats heartbeats, @Nullable RetryPolicy retry,
                     @Nullable StateFallback stateFallback, @Nullable InputStream stream, boolean atomicChain) {
        this(server, serviceFunction, params, chainingFunction, state, timeout, maxHops, interactive, metadata, deadline,
                heartbeats, retry, stateFallback, stream, atomicChain, AtomicCompletion.APPLIED);
    }

    public ChainCall {
        Objects.requireNonNull(server, "server");
        Objects.requireNonNull(serviceFunction, "serviceFunction");
        chainingFunction = chainingFunction == null ? ChainingFunctionSource.NONE : chainingFunction;
        if (chainingFunction.isSame()) {
            throw new IllegalArgumentException("a chain cannot start with ChainingFunctionSource.SAME: give a source");
        }
        state = state == null ? ChainState.empty() : state;
        metadata = metadata == null ? Metadata.empty() : metadata;
        atomicCompletion = atomicCompletion == null ? AtomicCompletion.APPLIED : atomicCompletion;
        if (maxHops < 0) {
            throw new IllegalArgumentException("maxHops must be positive, got " + maxHops);
        }
    }

    /** A plain call of {@code serviceFunction} at {@code server}, to be completed with the setters. */
    public static ChainCall to(String server, String serviceFunction) {
        return new ChainCall(server, serviceFunction, null, ChainingFunctionSource.NONE, ChainState.empty(), null, 0, null,
                Metadata.empty(), null, null, null, null, null, false, AtomicCompletion.APPLIED);
    }

    /** A chain along {@code route}, starting with {@code params}. */
    public static ChainCall along(StaticRoute route, Object params) {
        return to(route.firstServer(), route.firstServiceFunction()).params(params)
                .chainingFunction(route.chainingFunction()).state(route.initialState());
    }

    /**
     * A {@link SequentialChain}: the chain's code is {@code type}'s {@code run}, shipped as source
     * ({@link ChainingFunctionSource#of(Class)}) and run by replay at each hop. The first hop is
     * found here, by running a local instance of {@code type} up to its first call (without console
     * or partial replies; they are the first hop's). {@code input} travels in the chain state.
     *
     * <pre>{@code
     * ChainResult r = client.runChain(ChainCall.sequential(SequentialCheckout.class, order).timeout(Duration.ofSeconds(2)));
     * }</pre>
     *
     * @throws IllegalArgumentException if {@code type} has no public no-argument constructor, its source
     *     is not packaged with it, or it returns without making a call
     * @throws IllegalStateException if it throws before its first call (the exception is the cause)
     */
    public static <I> ChainCall sequential(Class<? extends SequentialChain<I, ?>> type, @Nullable I input) {
        SequentialChain<I, ?> local;
        try {
            local = type.getConstructor().newInstance();
        } catch (ReflectiveOperationException e) {
            throw new IllegalArgumentException("cannot make an instance of sequential chain " + type.getName()
                    + " to find its first hop: it needs a public no-argument constructor", e);
        }
        return sequential(SEQUENTIAL_SOURCES.get(type), local, input);
    }

    /** The sources of sequential chains by class, read and hashed once per class, not at every call. */
    private static final ClassValue<ChainingFunctionSource> SEQUENTIAL_SOURCES = new ClassValue<>() {
        @Override
        protected ChainingFunctionSource computeValue(Class<?> type) {
            return ChainingFunctionSource.of(type);
        }
    };

    /**
     * As {@link #sequential(Class, Object)}, for a sequential chain whose source comes from elsewhere
     * ({@link ChainingFunctionSource#javaResource}, a repository): {@code local} is an instance of the
     * same code, run here to find the first hop.
     *
     * @throws IllegalStateException if {@code local} throws before its first call (the exception is the cause)
     */
    public static <I> ChainCall sequential(ChainingFunctionSource source, SequentialChain<I, ?> local, @Nullable I input) {
        Objects.requireNonNull(source, "source");
        NextHop.Call first;
        try {
            first = SequentialReplay.start(local, input);
        } catch (RuntimeException e) {
            if (e instanceof IllegalArgumentException) {
                throw e;
            }
            throw new IllegalStateException("sequential chain " + local.getClass().getName()
                    + " threw before its first call: " + e, e);
        } catch (Exception e) {
            throw new IllegalStateException("sequential chain " + local.getClass().getName()
                    + " threw before its first call: " + e, e);
        }
        return to(first.server(), first.serviceFunction()).params(first.params()).chainingFunction(source)
                .state(first.state());
    }

    /** With the first service function's parameters. */
    public ChainCall params(@Nullable Object params) {
        return new ChainCall(server, serviceFunction, params, chainingFunction, state, timeout, maxHops, interactive, metadata,
                deadline, heartbeats, retry, stateFallback, stream, atomicChain, atomicCompletion);
    }

    /** With the chaining function to run after the first service function. */
    public ChainCall chainingFunction(ChainingFunctionSource cf) {
        return new ChainCall(server, serviceFunction, params, cf, state, timeout, maxHops, interactive, metadata,
                deadline, heartbeats, retry, stateFallback, stream, atomicChain, atomicCompletion);
    }

    /** With the initial state. */
    public ChainCall state(ChainState state) {
        return new ChainCall(server, serviceFunction, params, chainingFunction, state, timeout, maxHops, interactive, metadata,
                deadline, heartbeats, retry, stateFallback, stream, atomicChain, atomicCompletion);
    }

    /**
     * With a deadline: the chain must end by then. Its servers start no hop after it (the hop that
     * would start later ends the chain with a {@code DeadlineExceededException} naming it), and if
     * no result has come by then, the client ends the call with a {@code DeadlineExceededException}
     * and cancels the chain. Service functions read it from {@code ChainContext.current().deadline()}.
     * It travels as a budget that each crossing's measured network time is taken off, so the
     * servers' clocks need not agree with this one. The chain's effective deadline is the earlier of
     * this and the timeout (a timeout no later than it ends the call with a {@code ChainTimeoutException}).
     */
    public ChainCall deadline(Instant deadline) {
        return new ChainCall(server, serviceFunction, params, chainingFunction, state, timeout, maxHops, interactive,
                metadata, Objects.requireNonNull(deadline, "deadline"), heartbeats, retry, stateFallback, stream, atomicChain, atomicCompletion);
    }

    /** With a deadline {@code budget} from now: {@code deadline(Instant.now().plus(budget))}. */
    public ChainCall deadline(Duration budget) {
        return deadline(Instant.now().plus(budget));
    }

    /** With a timeout for the whole chain. */
    public ChainCall timeout(@Nullable Duration timeout) {
        return new ChainCall(server, serviceFunction, params, chainingFunction, state, timeout, maxHops, interactive, metadata,
                deadline, heartbeats, retry, stateFallback, stream, atomicChain, atomicCompletion);
    }

    /**
     * With {@code heartbeats} as the way this chain is watched for breaks (see {@link Heartbeats}),
     * instead of the client's default ({@code RpccClient.Builder.heartbeats}).
     */
    public ChainCall heartbeats(Heartbeats heartbeats) {
        return new ChainCall(server, serviceFunction, params, chainingFunction, state, timeout, maxHops, interactive,
                metadata, deadline, Objects.requireNonNull(heartbeats, "heartbeats"), retry, stateFallback, stream, atomicChain, atomicCompletion);
    }

    /**
     * With {@code retry} as the way this chain is sent again when it fails in a way that may pass
     * (see {@link RetryPolicy}; a broken chain is one), instead of the client's default. Chain mode
     * only: interactive chains are not retried.
     */
    public ChainCall retry(RetryPolicy retry) {
        return new ChainCall(server, serviceFunction, params, chainingFunction, state, timeout, maxHops, interactive,
                metadata, deadline, heartbeats, Objects.requireNonNull(retry, "retry"), stateFallback, stream, atomicChain, atomicCompletion);
    }

    /** With a hop limit. */
    public ChainCall maxHops(int maxHops) {
        return new ChainCall(server, serviceFunction, params, chainingFunction, state, timeout, maxHops, interactive, metadata,
                deadline, heartbeats, retry, stateFallback, stream, atomicChain, atomicCompletion);
    }

    /** In interactive mode ({@code true}) or chain mode ({@code false}). */
    @UnstableApi
    public ChainCall interactive(boolean interactive) {
        return new ChainCall(server, serviceFunction, params, chainingFunction, state, timeout, maxHops, interactive, metadata,
                deadline, heartbeats, retry, stateFallback, stream, atomicChain, atomicCompletion);
    }

    /**
     * With {@code data} streamed to the first hop: its service function (registered with
     * {@code RpccServer.Builder.streamingService}) starts when the REQUEST arrives and reads the data
     * as it comes, while the client still sends it, in chunks, no faster than the server grants room
     * ({@code NodeBuilder.streamWindowBytes}): the data is never held whole, so it may be larger than a
     * frame or than memory. The client reads {@code data} on a thread of its own once the REQUEST is
     * sent, and closes it when it is sent, or when the chain ends first (then the server's read fails
     * with a {@code ChainStreamException}). A stream is read once: a chain with one is not sent again
     * (no retries), and runs in chain mode only: in interactive mode, or with its state kept at the client
     * ({@link StateFallback#ADAPTIVE} or {@link StateFallback#ALWAYS}), starting it fails with an
     * {@code IllegalArgumentException}.
     */
    public ChainCall stream(InputStream data) {
        return new ChainCall(server, serviceFunction, params, chainingFunction, state, timeout, maxHops, interactive,
                metadata, deadline, heartbeats, retry, stateFallback, Objects.requireNonNull(data, "data"), atomicChain, atomicCompletion);
    }

    /**
     * With {@code fallback} as the way this chain's state goes with it or stays here
     * ({@link StateFallback}), instead of the client's default. Chain mode only: an interactive
     * chain keeps its state anyway.
     */
    public ChainCall stateFallback(StateFallback fallback) {
        return new ChainCall(server, serviceFunction, params, chainingFunction, state, timeout, maxHops, interactive,
                metadata, deadline, heartbeats, retry, Objects.requireNonNull(fallback, "fallback"), stream, atomicChain, atomicCompletion);
    }

    /** With {@code metadata} as the chain's metadata (replacing what was set before). */
    public ChainCall metadata(Metadata metadata) {
        return new ChainCall(server, serviceFunction, params, chainingFunction, state, timeout, maxHops, interactive,
                metadata, deadline, heartbeats, retry, stateFallback, stream, atomicChain, atomicCompletion);
    }

    /**
     * With metadata key {@code key} set to the text {@code value}.
     *
     * @throws IllegalArgumentException if the key is not valid (see {@link Metadata})
     * @throws MetadataTooLargeException if the metadata would hold too many entries or bytes
     */
    public ChainCall metadata(String key, String value) {
        return metadata(metadata.with(key, value));
    }

    /**
     * With metadata key {@code key} set to the bytes {@code value} (copied).
     *
     * @throws IllegalArgumentException if the key is not valid (see {@link Metadata})
     * @throws MetadataTooLargeException if the metadata would hold too many entries or bytes
     */
    public ChainCall metadata(String key, byte[] value) {
        return metadata(metadata.with(key, value));
    }

    /**
     * As an <em>atomic chain</em>: one transaction across every hop, sub-chain and split branch of
     * the chain. What its service functions change in transactional state ({@code TxVar},
     * {@code TxMap} and the resource managers they enlist, in {@code io.rpcc.server.atomic}) takes
     * effect at every server together, when the chain ends with a result, or nowhere: the chain's
     * future completes only once the outcome is decided, and an aborted chain fails with a
     * {@code TransactionAbortedException} saying why and where (a hop's failure that reaches the
     * client, a server's vote against it, a cancel, the deadline, a lost node).
     *
     * <p>What that guarantees: the chain's reads and writes of transactional state are serializable
     * with every other atomic chain's (strict two-phase locking); its partial replies are held at
     * their servers and delivered only if it commits; a conflict between two chains never
     * deadlocks (the older one wounds the younger, which is rolled back and started again as a new
     * attempt of the same chain, keeping its age, for as long as the deadline allows).
     *
     * <p>What it asks of the service functions it calls: they must be <em>re-runnable</em>. A
     * function that must wait for a lock is stopped, its writes discarded, and run again from its
     * start when the lock is free, and a wounded chain runs again from its first hop. Keep every
     * effect outside rpcc's transactional state (a message sent, a file written, a call to another
     * system) in an {@code onCommit} hook of {@code Transaction.current()}, which runs once, after
     * the commit. An atomic chain runs in chain mode only, without a data stream, and is not sent
     * again by a {@link RetryPolicy} (its restarts after a wound are its own).
     *
     * <p>Its future completes with the result once every server has applied the commit
     * ({@link AtomicCompletion#APPLIED}); {@link #atomic(AtomicCompletion)} with
     * {@link AtomicCompletion#DECIDED} completes it a round trip sooner, at the decision.
     */
    public ChainCall atomic() {
        return atomic(AtomicCompletion.APPLIED);
    }

    /**
     * As {@link #atomic()}, with {@code completion} saying when the chain's future completes with its
     * result: once every server has applied the commit ({@link AtomicCompletion#APPLIED}, as
     * {@link #atomic()}), or as soon as the client has decided it ({@link AtomicCompletion#DECIDED}: a
     * round trip sooner; atomic chains started after it see the commit, reads outside atomic chains may
     * not yet). An abort fails the future the same way in both.
     *
     * <pre>{@code
     * ChainResult r = client.runChain(ChainCall.along(route, transfer).atomic(AtomicCompletion.DECIDED));
     * }</pre>
     */
    public ChainCall atomic(AtomicCompletion completion) {
        return new ChainCall(server, serviceFunction, params, chainingFunction, state, timeout, maxHops, interactive,
                metadata, deadline, heartbeats, retry, stateFallback, stream, true,
                Objects.requireNonNull(completion, "completion"));
    }
}
