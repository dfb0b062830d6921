package io.rpcc.client;

import io.rpcc.client.internal.CancellableFuture;
import io.rpcc.client.internal.BufferedReplySet;
import io.rpcc.client.internal.ChainDiagnosis;
import io.rpcc.client.internal.ChainLauncher;
import io.rpcc.client.internal.DecoratedCall;
import io.rpcc.client.internal.ReplyTap;
import io.rpcc.client.internal.InteractiveChain;
import io.rpcc.client.internal.StateFallbacks;
import io.rpcc.client.internal.StepMode;
import io.rpcc.client.internal.RetryTokens;
import io.rpcc.core.ChainCancelledException;
import io.rpcc.core.ChainException;
import io.rpcc.core.ChainResult;
import io.rpcc.core.ChainState;
import io.rpcc.core.ChainingFunctionSource;
import io.rpcc.core.NextHop;
import io.rpcc.core.runtime.NodeBuilder;
import io.rpcc.core.NodeClosedException;
import io.rpcc.core.NodeShuttingDownException;
import io.rpcc.core.RepositoryUnavailableException;
import io.rpcc.core.SocketTransport;
import io.rpcc.core.StaticRoute;
import io.rpcc.core.UnstableApi;
import io.rpcc.core.internal.chain.BuilderAccess;
import io.rpcc.core.internal.chain.ChainStart;
import io.rpcc.core.internal.chain.HeartbeatPolicy;
import io.rpcc.core.internal.chain.Node;
import io.rpcc.core.internal.transport.OutboundStream;
import io.rpcc.repository.internal.RepositoryClient;
import java.util.ArrayList;
import java.util.List;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.Objects;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.Set;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import org.jspecify.annotations.Nullable;

/**
 * Starts chains and receives their results. A client is a node without service functions: it
 * listens too, so the last server of a chain sends the result straight to it (never back along the
 * path).
 *
 * <pre>{@code
 * RpccClient client = RpccClient.builder()
 *     .resolver(names)
 *     .types(types)
 *     .build()
 *     .start();                       // listening on 127.0.0.1, any free port
 *
 * // asynchronous
 * CompletableFuture<ChainResult> f = client.startChain("gateway", "region", order, route, ChainState.of("sku", sku));
 * // blocking; throws ChainException
 * ChainResult r = client.runChain("gateway", "region", order, route, ChainState.of("sku", sku));
 * }</pre>
 *
 * <p>Futures complete on the client's executor (virtual threads by default), never on a Netty event
 * loop, so callbacks may block. A failed chain completes the future with a {@link ChainException}
 * subclass naming the hop, host and path.
 *
 * <p>Life cycle, as for servers: {@link Builder#build()} makes the client, {@link #start()} makes
 * it listen (connections to servers open on first use); a client that is not started refuses to
 * start chains. {@link #close()} ends every chain in flight at once with a
 * {@link NodeClosedException}; {@link #shutdown(Duration)} first lets them finish.
 */
public final class RpccClient implements AutoCloseable {
    private final Node node;
    private final RepositoryClient repositoryClient;
    private final ChainLauncher launcher;
    private final InteractiveChain interactiveChains;
    private final ChainDiagnosis diagnosis;
    private final Heartbeats defaultHeartbeats;
    private final Duration defaultTimeout;
    private final boolean defaultInteractive;
    private final int replyBufferSize;
    private final long replyBufferBytes;
    private final String repository;
    private final int inlineLimit;
    private final Set<String> uploaded = ConcurrentHashMap.newKeySet();
    private volatile InetSocketAddress address;
    private final List<ClientInterceptor> interceptors;
    private final List<ChainDecorator> decorators;
    private final RetryPolicy defaultRetry;
    private final StateFallback defaultStateFallback;
    private final StateFallbacks stateFallbacks = new StateFallbacks(); // what ADAPTIVE learned of this client's chains

    private RpccClient(Builder b, Node.Settings settings) {
        this.node = new Node(settings);
        this.repositoryClient = new RepositoryClient(node);
        this.launcher = new ChainLauncher(node, new RetryTokens(b.retryThrottle));
        this.defaultRetry = b.retryPolicy;
        this.interactiveChains = new InteractiveChain(launcher);
        this.diagnosis = new ChainDiagnosis(interactiveChains);
        this.defaultHeartbeats = b.heartbeats;
        this.defaultTimeout = b.timeout;
        this.defaultInteractive = b.interactive;
        this.defaultStateFallback = b.stateFallback;
        this.replyBufferSize = b.replyBufferSize;
        this.replyBufferBytes = b.replyBufferBytes;
        this.repository = b.repository;
        this.inlineLimit = b.inlineFunctionLimit;
        this.interceptors = List.copyOf(b.interceptors);
        this.decorators = List.copyOf(b.decorators);
    }

    /**
     * Starts the client: it listens, so that results and replies can come straight back to it.
     *
     * @return this client
     * @throws IllegalStateException if it was started before
     */
    public RpccClient start() {
        address = node.start();
        return this;
    }

    /** A builder for a client with a generated name ({@code client-<random>}). */
    public static Builder builder() {
        return new Builder("client-" + UUID.randomUUID().toString().substring(0, 8));
    }

    /**
     * Starts a chain at {@code server} with service function {@code serviceFunction} and chaining
     * function {@code cf} (paper Fig. 2).
     *
     * @param server the first server's name
     * @param serviceFunction the service function to call there
     * @param params its parameters
     * @param cf the chaining function that runs after it ({@link ChainingFunctionSource#NONE}: a plain call)
     * @param state the state passed to {@code cf}
     * @return the chain's result, or a {@link ChainException}
     */
    public CompletableFuture<ChainResult> startChain(String server, String serviceFunction, @Nullable Object params,
                                                     ChainingFunctionSource cf, ChainState state) {
        return startChain(ChainCall.to(server, serviceFunction).params(params).chainingFunction(cf).state(state));
    }

    /** Starts a chain along a static route (paper 3.1), passing {@code params} to the first hop. */
    public CompletableFuture<ChainResult> startChain(StaticRoute route, @Nullable Object params) {
        return startChain(ChainCall.along(route, params));
    }

    /**
     * Starts a chain described by {@code call}. {@code cancel(true)} on the returned future cancels
     * the chain wherever it is (the notice follows it from server to server: the hop running is
     * interrupted and no further hop starts); the future then throws a {@code CancellationException}
     * whose cause is a {@link ChainCancelledException}. The client's {@link ChainDecorator}s wrap the
     * call (a decorator that throws fails the future with a {@link ChainDecoratorException}).
     */
    public CompletableFuture<ChainResult> startChain(ChainCall call) {
        Objects.requireNonNull(call, "call");
        node.requireStarted();
        DecoratedCall decorated;
        try {
            decorated = decorate(call, ChainDecorator.Mode.FUTURE);
        } catch (ChainDecoratorException e) {
            return CompletableFuture.failedFuture(e);
        }
        // The internal future completes on an event loop; user code continues on the executor.
        CompletableFuture<ChainResult> internal;
        try {
            internal = launch(decorated.call(), decorated);
        } catch (RuntimeException | Error e) {
            decorated.afterStart();
            decorated.ended(null, e);
            throw e;
        }
        boolean atomic = decorated.call().atomicChain();
        CompletableFuture<ChainResult> user = new CancellableFuture<>(() -> {
            if (!internal.cancel(true) && !internal.isCancelled() && atomic) {
                // an atomic chain that decided to commit (or whose result is on its way here): the user gets it
                return CancellableFuture.TOO_LATE;
            }
            Throwable why = CancellableFuture.cancellationCause(internal);
            decorated.endedBeforeReturning(null, why != null ? why : new CancellationException("cancelled"));
            return why;
        });
        internal.whenComplete((r, e) -> node.executor().execute(() -> {
            decorated.ended(r, e);
            if (e != null) {
                user.completeExceptionally(Node.unwrap(e));
            } else {
                user.complete(r);
            }
        }));
        decorated.afterStart();
        return user;
    }

    /** Runs the decorators on {@code call}; throws the {@link ChainDecoratorException} of one that failed. */
    private DecoratedCall decorate(ChainCall call, ChainDecorator.Mode mode) {
        return DecoratedCall.decorate(decorators, call, mode, isInteractive(call));
    }

    /** Where the replies of {@code decorated} are told: its listeners, if it has any. */
    private static ReplyTap tap(DecoratedCall decorated) {
        return decorated.listens() ? decorated::replied : ReplyTap.NONE;
    }

    /**
     * Uploads {@code source} to the client's repository (once per content id) and returns the
     * reference that chains can carry instead of the source.
     *
     * @throws IllegalStateException if the client has no repository
     * @throws RepositoryUnavailableException if the repository cannot be reached, fails to store the
     *     source or answers anything but its id
     */
    public ChainingFunctionSource upload(ChainingFunctionSource source) {
        if (repository == null) {
            throw new IllegalStateException("this client has no repository: set RpccClient.builder().repository(name)");
        }
        if (source.isReference() || source.language() == null) {
            return source;
        }
        node.requireAcceptingChains();
        if (!uploaded.contains(source.id())) {
            uploaded.add(repositoryClient.put(repository, source, defaultTimeout));
        }
        return source.asReference(repository);
    }

    /**
     * The call as it should start: as the interceptors make it, with the chaining function by
     * reference when it is over the inline limit.
     */
    private ChainCall prepare(ChainCall call) {
        for (ClientInterceptor interceptor : interceptors) {
            call = Objects.requireNonNull(interceptor.interceptStart(call), "a client interceptor returned no call");
        }
        if (call.stream() != null && isInteractive(call)) {
            throw new IllegalArgumentException("a chain with a data stream (ChainCall.stream) cannot run in interactive "
                    + "mode: its data goes to the first hop once; run it in chain mode (ChainCall.interactive(false))");
        }
        if (call.stream() != null && stepsAtClient(call)) {
            throw new IllegalArgumentException("a chain with a data stream (ChainCall.stream) cannot keep its state at "
                    + "the client (StateFallback." + stateFallback(call) + "): its data goes to the first hop once, and "
                    + "a chain whose steps run at the client would not send it; run it with "
                    + "ChainCall.stateFallback(StateFallback.NEVER)");
        }
        if (call.atomicChain() && (call.stream() != null || isInteractive(call) || stepsAtClient(call))) {
            throw new IllegalArgumentException("an atomic chain (ChainCall.atomic) runs in chain mode, without a data "
                    + "stream and with its state carried along: run it with ChainCall.interactive(false) and "
                    + "ChainCall.stateFallback(StateFallback.NEVER), without ChainCall.stream");
        }
        ChainingFunctionSource cf = call.chainingFunction();
        if (repository == null || cf.isReference() || cf.language() == null || cf.source().length() <= inlineLimit) {
            return call;
        }
        return call.chainingFunction(upload(cf));
    }

    private CompletableFuture<ChainResult> launch(ChainCall call, DecoratedCall decorated) {
        Objects.requireNonNull(call, "call");
        node.requireStarted();
        try {
            node.requireAcceptingChains();
            call = prepare(call);
        } catch (RuntimeException e) {
            return CompletableFuture.failedFuture(e);
        }
        return launchPrepared(call, decorated);
    }

    /**
     * Starts {@code call}, which {@link #prepare} returned, telling its retries, failovers and
     * replies to {@code decorated}'s listeners.
     */
    private CompletableFuture<ChainResult> launchPrepared(ChainCall call, DecoratedCall decorated) {
        ChainStart start = chainStart(call).tellingFailovers(decorated.failovers());
        ReplyTap tap = tap(decorated);
        StepMode steps = stepMode(call, start);
        if (steps != null) {
            return interactiveChains.start(start, steps, tap);
        }
        return launcher.start(start, retry(call), (broken, detected, at) -> diagnosis.diagnose(broken, detected, at,
                tap), decorated::retried, tap, call.atomicCompletion() == AtomicCompletion.DECIDED);
    }

    /**
     * Starts a chain whose partial replies ({@code preturn} at any hop) are read as they arrive. The
     * set ends exactly when the chain's result and every reply of every hop have arrived;
     * {@link ReplySet#cancel()} cancels the chain.
     *
     * @param replyType the type of the replies ({@code Object.class} for any)
     */
    public <T> ReplySet<T> startChainWithReplies(ChainCall call, Class<T> replyType) {
        Objects.requireNonNull(call, "call");
        node.requireStarted();
        BufferedReplySet<T> replies = new BufferedReplySet<>(replyType, replyBufferSize, replyBufferBytes, node.executor());
        DecoratedCall decorated;
        try {
            decorated = decorate(call, ChainDecorator.Mode.WITH_REPLIES);
        } catch (ChainDecoratorException e) {
            replies.resultFailed(e);
            replies.finished(e);
            return replies;
        }
        if (!decorators.isEmpty()) {
            replies.whenEnded(decorated::ended);
            replies.whenReplied(decorated::replied);
        }
        try {
            startWithReplies(replies, decorated.call(), decorated);
        } finally {
            decorated.afterStart();
        }
        return replies;
    }

    private <T> void startWithReplies(BufferedReplySet<T> replies, ChainCall call, DecoratedCall decorated) {
        try {
            node.requireAcceptingChains();
            call = prepare(call);
        } catch (RuntimeException e) {
            replies.resultFailed(e);
            replies.finished(e);
            return;
        }
        ChainStart start = chainStart(call).tellingFailovers(decorated.failovers());
        StepMode steps = stepMode(call, start);
        if (steps != null) {
            replies.cancelWith(interactiveChains.startWithReplies(replies, start, steps));
            return;
        }
        replies.cancelWith(launcher.startWithReplies(replies, start, retry(call), diagnosis::diagnoseWithReplies,
                decorated::retried));
    }

    /**
     * A multi-return RPC (Quatrain): calls {@code serviceFunction} at {@code server} and reads its
     * partial replies as they arrive.
     */
    public <T> ReplySet<T> callWithReplies(String server, String serviceFunction, @Nullable Object params,
                                           Class<T> replyType) {
        return startChainWithReplies(ChainCall.to(server, serviceFunction).params(params), replyType);
    }

    /** A plain RPC: calls {@code serviceFunction} at {@code server} and returns its result (a 1-hop chain). */
    public CompletableFuture<ChainResult> call(String server, String serviceFunction, @Nullable Object params) {
        return startChain(ChainCall.to(server, serviceFunction).params(params));
    }

    /** {@link #startChain(String, String, Object, ChainingFunctionSource, ChainState)}, waiting for the result. */
    public ChainResult runChain(String server, String serviceFunction, @Nullable Object params,
                                ChainingFunctionSource cf, ChainState state) {
        return runChain(ChainCall.to(server, serviceFunction).params(params).chainingFunction(cf).state(state));
    }

    /**
     * {@link #startChain(ChainCall)}, waiting for the result; throws a {@link ChainException}, or a
     * {@link ChainDecoratorException} if one of the client's decorators failed before the chain started.
     */
    public ChainResult runChain(ChainCall call) {
        Objects.requireNonNull(call, "call");
        DecoratedCall decorated = decorate(call, ChainDecorator.Mode.BLOCKING);
        ChainResult result;
        try {
            result = runDecorated(decorated.call(), decorated);
        } catch (RuntimeException | Error e) {
            decorated.afterStart();
            decorated.ended(null, e);
            throw e;
        }
        decorated.afterStart();
        decorated.ended(result, null);
        return result;
    }

    private ChainResult runDecorated(ChainCall call, DecoratedCall decorated) {
        node.requireAcceptingChains();
        call = prepare(call);
        if (isInteractive(call) || stateFallback(call) != StateFallback.NEVER) {
            // the calling thread drives the chain: no hand-off to the executor
            ChainStart start = chainStart(call).tellingFailovers(decorated.failovers());
            StepMode steps = stepMode(call, start);
            if (steps != null) {
                return interactiveChains.runCollecting(start, steps, tap(decorated));
            }
        }
        return await(launchPrepared(call, decorated));
    }

    /** The chain {@code call} starts, with this client's defaults for what it leaves open. */
    private ChainStart chainStart(ChainCall call) {
        ChainStart start = new ChainStart(new NextHop.Call(call.server(), call.serviceFunction(), call.params(),
                call.chainingFunction(), call.state()), call.metadata(), maxHops(call), timeout(call), call.deadline(),
                heartbeats(call));
        if (call.atomicChain()) {
            start = start.asAtomic();
        }
        return call.stream() == null ? start : start.streaming(new OutboundStream(call.stream(), "the data of a chain to '"
                + call.server() + "' ('" + call.serviceFunction() + "')"));
    }

    private Duration timeout(ChainCall call) {
        return call.timeout() != null ? call.timeout() : defaultTimeout;
    }

    private HeartbeatPolicy heartbeats(ChainCall call) {
        Heartbeats h = call.heartbeats() != null ? call.heartbeats() : defaultHeartbeats;
        return h.isOn() ? HeartbeatPolicy.of(h.interval(), h.brokenAfter()) : HeartbeatPolicy.OFF;
    }

    private RetryPolicy retry(ChainCall call) {
        if (call.stream() != null || call.atomicChain()) { // its data is read once; its restarts are its own
            return RetryPolicy.NONE;
        }
        return call.retry() != null ? call.retry() : defaultRetry;
    }

    /**
     * Sends the chain that failed with {@code failure} again (paper 3.9, idempotent retry): the same
     * chain, with the same id and secret, so that its servers replay the outcomes they kept of the
     * hops that ran before (see docs/guides/errors-and-retry.md) and it moves fast up to where it
     * broke. For chains this client started with {@link #startChain}, {@link #runChain} or
     * {@link #call} in chain mode that failed with a {@link ChainException#isRetryable() retryable}
     * failure (after the retries of their {@link RetryPolicy}, if any) less than a minute ago; each
     * failure can be sent again once (the new attempt's failure, if any, can be sent again in its
     * turn). The chain gets {@code timeout} (and no deadline), and is retried as the client's default
     * retry policy says.
     *
     * <pre>{@code
     * try {
     *     return client.runChain(call);
     * } catch (ChainException e) {
     *     if (!e.isRetryable()) throw e;
     *     log.warn("chain {} failed at {}, sending it again", client.chainIdOf(e).orElse("?"), e.host());
     *     return client.retransmit(e, Duration.ofSeconds(10)).join();
     * }
     * }</pre>
     *
     * @throws IllegalArgumentException if {@code failure} is not such a failure, or was sent again already
     */
    public CompletableFuture<ChainResult> retransmit(ChainException failure, Duration timeout) {
        Objects.requireNonNull(failure, "failure");
        Objects.requireNonNull(timeout, "timeout");
        node.requireAcceptingChains();
        CompletableFuture<ChainResult> internal = launcher.retransmit(failure, timeout, null, defaultRetry,
                (broken, detected, at) -> diagnosis.diagnose(broken, detected, at, ReplyTap.NONE));
        CompletableFuture<ChainResult> user = new CancellableFuture<>(() -> {
            internal.cancel(true);
            return CancellableFuture.cancellationCause(internal);
        });
        internal.whenComplete((r, e) -> node.executor().execute(() -> {
            if (e != null) {
                user.completeExceptionally(Node.unwrap(e));
            } else {
                user.complete(r);
            }
        }));
        return user;
    }

    /**
     * The id of the chain that failed with {@code failure} ({@code <client>#<number>}: the servers'
     * outcome caches and logs know it by it), if {@link #retransmit} could send it again.
     */
    public Optional<String> chainIdOf(ChainException failure) {
        return launcher.chainIdOf(Objects.requireNonNull(failure, "failure"));
    }

    private int maxHops(ChainCall call) {
        return call.maxHops() > 0 ? call.maxHops() : node.settings().maxHops();
    }

    private StateFallback stateFallback(ChainCall call) {
        return call.stateFallback() != null ? call.stateFallback() : defaultStateFallback;
    }

    /**
     * How {@code call} is run step by step from here: interactive (every chaining function here), or
     * with its state carried or kept hop by hop ({@link StateFallback#ADAPTIVE}); {@code null}: in chain mode.
     */
    private StepMode stepMode(ChainCall call, ChainStart start) {
        StateFallback fallback = stateFallback(call);
        if (isInteractive(call) || fallback == StateFallback.ALWAYS) {
            return StepMode.of(start.heartbeats());
        }
        if (fallback == StateFallback.ADAPTIVE && !call.chainingFunction().isNone()) {
            return StepMode.adaptive(start.heartbeats(), stateFallbacks);
        }
        return null;
    }

    /** Whether {@code call}'s chaining functions may run at this client, step by step, for its state fall-back. */
    private boolean stepsAtClient(ChainCall call) {
        StateFallback fallback = stateFallback(call);
        return fallback == StateFallback.ALWAYS
                || fallback == StateFallback.ADAPTIVE && !call.chainingFunction().isNone();
    }

    private boolean isInteractive(ChainCall call) {
        return call.interactive() != null ? call.interactive() : defaultInteractive;
    }

    private static ChainResult await(CompletableFuture<ChainResult> f) {
        try {
            return f.join();
        } catch (CompletionException e) {
            if (e.getCause() instanceof RuntimeException re) {
                throw re;
            }
            throw e;
        }
    }

    /** The client's node name. */
    public String name() {
        return node.name();
    }

    /**
     * The address where results reach this client.
     *
     * @throws IllegalStateException if it is not started
     */
    public InetSocketAddress address() {
        InetSocketAddress a = address;
        if (a == null) {
            throw new IllegalStateException("client '" + name() + "' is not started: call start() after build()");
        }
        return a;
    }

    /** Chains started and not yet ended. */
    public int chainsInFlight() {
        return node.originator().inFlight();
    }

    /** Result, error, reply or QUIET frames that arrived after their chain had ended (timed out or cancelled). */
    public long lateFrames() {
        return node.originator().lateFrames();
    }

    /** Heartbeats that arrived after their chain had ended (dropped). */
    public long lateHeartbeats() {
        return node.originator().lateHeartbeats();
    }

    /** Chains this client declared broken because their heartbeats stopped (see {@link Heartbeats}), the steps of a diagnosis included. */
    public long brokenChains() {
        return node.originator().brokenChains();
    }

    /**
     * The socket transport this client's connections run on: {@link SocketTransport#EPOLL}
     * or {@link SocketTransport#NIO} (what {@code NodeBuilder.transport} chose).
     */
    public SocketTransport transport() {
        return node.transport().socketTransport();
    }

    /** Counters of this client's transport and chains, for monitoring and tests. */
    public ClientStats stats() {
        var t = node.transport().stats();
        return new ClientStats(t.connectionsOpen(), chainsInFlight(), lateFrames(), t.refusals(), launcher.retries(),
                node.originator().retransmissions(), node.originator().earlierAttemptFrames(), node.ejection().failovers(),
                t.pingsSent(), node.originator().repliesSentAgain(), node.originator().repliesReceived(),
                node.originator().replyBytesReceived(), node.transport().disconnects());
    }

    /**
     * Closes the client at once: every chain in flight ends now with a {@link NodeClosedException}
     * (futures and reply sets complete, nothing waits for a timeout), and the client stops listening
     * and closes its connections. Idempotent.
     */
    @Override
    public void close() {
        node.close();
    }

    /**
     * Closes the client gracefully: it starts no new chains ({@link NodeShuttingDownException}),
     * waits up to {@code grace} for the chains in flight to finish, then {@link #close()}s.
     */
    public void shutdown(Duration grace) {
        node.shutdown(Objects.requireNonNull(grace, "grace"));
    }

    /** Builds an {@link RpccClient}; {@link RpccClient#start()} then starts it. */
    public static final class Builder extends NodeBuilder<Builder> {
        private Duration timeout = Duration.ofSeconds(30);
        private boolean interactive;
        private StateFallback stateFallback = StateFallback.NEVER;
        private int replyBufferSize = 1024;
        private long replyBufferBytes = 16L << 20;
        private String repository;
        private int inlineFunctionLimit = 2048;
        private Heartbeats heartbeats = Heartbeats.DEFAULT;
        private final List<ClientInterceptor> interceptors = new ArrayList<>();
        private final List<ChainDecorator> decorators = new ArrayList<>();
        private RetryPolicy retryPolicy = RetryPolicy.NONE;
        private RetryThrottle retryThrottle = RetryThrottle.DEFAULT;

        private Builder(String name) {
            super(name);
            BuilderAccess.fetchSourcesWith(this, node -> new RepositoryClient(node)::get); // interactive mode runs chaining functions here
        }

        /** The default time to wait for a chain's result (default 30 s). */
        public Builder timeout(Duration timeout) {
            this.timeout = Objects.requireNonNull(timeout, "timeout");
            return this;
        }

        /**
         * How this client's chains are watched for breaks, unless a call says otherwise
         * ({@link ChainCall#heartbeats}); default {@link Heartbeats#DEFAULT}: a heartbeat every 3 s,
         * broken after 6 s without one. A broken chain is diagnosed in interactive mode and fails with
         * a {@link io.rpcc.core.BrokenChainException} naming the hop where it stops.
         */
        public Builder heartbeats(Heartbeats heartbeats) {
            this.heartbeats = Objects.requireNonNull(heartbeats, "heartbeats");
            return this;
        }

        /**
         * Whether this client's chains carry their state to the servers, keep it here, or choose hop by
         * hop from the links' measured round trips and throughput ({@link StateFallback}), unless a
         * call says otherwise ({@link ChainCall#stateFallback}); default {@link StateFallback#NEVER}:
         * chain mode, which is what states of a few kilobytes (the usual) want, without the measuring of
         * each hop's state that {@link StateFallback#ADAPTIVE} does. See docs/guides/large-state.md.
         */
        public Builder stateFallback(StateFallback fallback) {
            this.stateFallback = Objects.requireNonNull(fallback, "fallback");
            return this;
        }

        /** Whether chains run in interactive mode by default (default: no). */
        @UnstableApi
        public Builder interactive(boolean interactive) {
            this.interactive = interactive;
            return this;
        }

        /**
         * How many partial replies a {@link ReplySet} holds unread, at most (default 1024): the servers
         * that produce them send only within the room the set grants them, and wait when there is none.
         */
        public Builder replyBufferSize(int replies) {
            if (replies < 1) {
                throw new IllegalArgumentException("replyBufferSize must be positive, got " + replies);
            }
            this.replyBufferSize = replies;
            return this;
        }

        /**
         * How many bytes of partial replies (counted as their frames on the wire) a {@link ReplySet}
         * holds unread, at most (default 16 MiB). A reply larger than this can never be sent: its
         * {@code preturn} fails with {@code FlowControlException} after the server's reply write timeout.
         */
        public Builder replyBufferBytes(long bytes) {
            if (bytes < 1) {
                throw new IllegalArgumentException("replyBufferBytes must be positive, got " + bytes);
            }
            this.replyBufferBytes = bytes;
            return this;
        }

        /**
         * The repository node (a server built with {@code RpccServer.builder(name).repository(store)})
         * that stores this client's chaining functions. With one, functions larger than the inline
         * limit are uploaded once and travel by reference; servers fetch them on first use and cache
         * them compiled.
         */
        public Builder repository(@Nullable String repositoryNode) {
            this.repository = repositoryNode;
            return this;
        }

        /**
         * The largest chaining-function source, in chars, that travels inline with the chain when a
         * repository is set (default 2048); larger ones travel by reference.
         */
        public Builder inlineFunctionLimit(int chars) {
            if (chars < 0) {
                throw new IllegalArgumentException("inlineFunctionLimit must not be negative, got " + chars);
            }
            this.inlineFunctionLimit = chars;
            return this;
        }

        /**
         * Runs {@code interceptor} before every chain this client starts (see {@link ClientInterceptor});
         * interceptors run in the order they are added.
         */
        @UnstableApi
        public Builder interceptor(ClientInterceptor interceptor) {
            interceptors.add(Objects.requireNonNull(interceptor, "interceptor"));
            return this;
        }

        /**
         * Wraps every call this client makes in {@code decorator} (see {@link ChainDecorator}): it sees
         * the call before it starts and is told once how it ended, in every start mode. Decorators
         * wrap one another in the order they are added: the first added is the outermost (it decorates
         * the call first and is told its end last); the {@link ClientInterceptor}s run inside all of them.
         */
        @UnstableApi
        public Builder decorator(ChainDecorator decorator) {
            decorators.add(Objects.requireNonNull(decorator, "decorator"));
            return this;
        }

        /**
         * How this client's chains are sent again when they fail in a way that may pass (default
         * {@link RetryPolicy#NONE}: never); a {@link ChainCall#retry} wins over it.
         */
        public Builder retryPolicy(RetryPolicy policy) {
            this.retryPolicy = Objects.requireNonNull(policy, "policy");
            return this;
        }

        /** The budget of retries shared by this client's chains (default {@link RetryThrottle#DEFAULT}). */
        public Builder retryThrottle(RetryThrottle throttle) {
            this.retryThrottle = Objects.requireNonNull(throttle, "throttle");
            return this;
        }

        /** The client, not started: call {@link RpccClient#start()}. Nothing listens or connects yet. */
        public RpccClient build() {
            return new RpccClient(this, BuilderAccess.settingsOf(this));
        }
    }
}
