package io.rpcc.server;

import io.rpcc.core.runtime.NodeBuilder;
import io.rpcc.core.ServiceMethod;
import io.rpcc.core.spi.ServiceMethods;
import io.rpcc.core.NodeClosedException;
import io.rpcc.core.NodeShuttingDownException;
import io.rpcc.core.ServiceFunction;
import io.rpcc.core.StreamingServiceFunction;
import io.rpcc.server.internal.StreamInputs;
import io.rpcc.core.SocketTransport;
import io.rpcc.core.SubChain;
import io.rpcc.core.UnstableApi;
import io.rpcc.core.internal.chain.BuilderAccess;
import io.rpcc.core.internal.chain.Node;
import io.rpcc.core.internal.transport.TransportStats;
import io.rpcc.repository.ChainingFunctionRepository;
import io.rpcc.repository.internal.RepositoryClient;
import io.rpcc.repository.internal.RepositoryEndpoint;
import io.rpcc.repository.internal.RepositoryProtocol;
import io.rpcc.server.internal.ChainPathWarmUp;
import io.rpcc.server.internal.HopExecutor;
import io.rpcc.server.internal.HopSettings;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.Set;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * A server: a node that hosts service functions and runs the hops of chains that reach it.
 * {@link Builder#build()} makes it, {@link #start()} makes it listen (connections to other nodes
 * open on first use); {@link #shutdown(Duration)} drains it, {@link #close()} stops it at once.
 *
 * <pre>{@code
 * StaticNameResolver names = new StaticNameResolver();
 * RpccServer inventory = RpccServer.builder("inventory")
 *     .listen("0.0.0.0", 7001)
 *     .resolver(names)
 *     .types(types)
 *     .service("stock", sku -> stockOf((String) sku))
 *     .build()
 *     .start();
 * }</pre>
 *
 * <p>Each hop runs on the server's executor (virtual threads by default): the service function,
 * then the chain's chaining function, compiled from source on first use and cached. The chain then
 * goes on to the next server, or its result goes straight to the node that started it.
 */
public final class RpccServer implements AutoCloseable {
    private final Node node;
    private final HopExecutor hops;
    private final Set<String> services;
    private volatile InetSocketAddress address;
    /** The JVM's warm-up of the chain path, if this server started it. */
    private volatile ChainPathWarmUp chainPathWarmUp;

    private RpccServer(Node node, HopExecutor hops, Set<String> services) {
        this.node = node;
        this.hops = hops;
        this.services = services;
    }

    /** A builder for a server named {@code name}. */
    public static Builder builder(String name) {
        return new Builder(name);
    }

    /**
     * Starts the server: it listens for hops.
     *
     * @return this server
     * @throws IllegalStateException if it was started before
     */
    public RpccServer start() {
        address = node.start(hops);
        chainPathWarmUp = ChainPathWarmUp.startOnce(node, s -> s.node); // in the background, once per JVM
        return this;
    }

    /**
     * Waits, at most {@code timeout}, for what this server warms in the background after {@link #start()}:
     * its chaining-function compilers (javac, GraalJS; once per JVM), the functions it knows at start
     * (precompiled), and the spare function runners of a pool it starts with the node (see
     * {@link Builder#functionIsolation}). Chains are served meanwhile; the first ones pay what is not warm
     * yet. A node can wait for this before it reports itself ready, as the standalone node does.
     *
     * @return true if all of it is warm, false if the timeout came first (or a runner failed to start)
     */
    public boolean awaitWarmUp(Duration timeout) throws InterruptedException {
        return node.functions().awaitWarmUp(Math.max(0, timeout.toMillis()));
    }

    /** The server's name. */
    public String name() {
        return node.name();
    }

    /** The names of the service functions this server hosts, in the order they were added. */
    public Set<String> services() {
        return services;
    }

    /** The address it listens on (after {@link #start()}). */
    public InetSocketAddress address() {
        if (address == null) {
            throw new IllegalStateException("server '" + name() + "' is not started");
        }
        return address;
    }

    /**
     * The socket transport this server's connections run on: {@link SocketTransport#EPOLL}
     * or {@link SocketTransport#NIO} (what {@code NodeBuilder.transport} chose).
     */
    public SocketTransport transport() {
        return node.transport().socketTransport();
    }

    /** Counters of the data streams that reached this server's hops, for monitoring and tests. */
    public StreamStats streamStats() {
        var s = node.transport().streams();
        return new StreamStats(s.streamsOpened(), s.bufferedBytes(), s.peakBufferedBytes(), s.reservedBytes(),
                s.limits().bufferBytes(), s.limits().bytesPerAddress());
    }

    /** Counters of this server's transport and chaining-function cache, for monitoring and tests. */
    public ServerStats stats() {
        var t = node.transport().stats();
        var f = node.functions().stats();
        return new ServerStats(t.connectionsOpen(), t.malformedFrames(), t.framesReceived(), f.hits(), f.misses(),
                f.compileNanos(), f.fetches(), t.refusals(), f.abandonedSandboxThreads(), hops.droppedBranchOutcomes(),
                hops.outcomeCacheHits(), hops.outcomeCacheMisses(), hops.outcomeCacheEvictions(),
                hops.outcomeCacheAttached(), hops.outcomeCacheSize(), hops.outcomeCacheBytes(), node.ejection().failovers(),
                node.ejection().ejections(), t.pingsSent(), hops.replyWaits(), hops.replyWaitNanos(),
                node.functions().sandboxViolations(), node.transport().disconnects());
    }

    /** The transactions of atomic chains at this server (test hook). */
    io.rpcc.server.internal.atomic.LocalTransactions transactions() {
        return hops.transactions();
    }

    /**
     * This server's pool of Java function-runner processes, or {@code null} if no function has needed
     * one yet (test hook).
     */
    io.rpcc.core.internal.function.FunctionRunnerPool functionRunners() {
        return node.functions().runnersOrNull();
    }

    /**
     * Counters of this server's transport, the bytes it holds to write among them (test hook: checks
     * that they stay within the write-queue limits).
     */
    TransportStats transportStats() {
        return node.transport().stats();
    }

    /**
     * Connections this server opened that are open now, its connection attempts under way, and the
     * idle connections it closed to make room (test hook: checks the outbound bounds).
     */
    int[] outboundConnections() {
        var t = node.transport();
        return new int[] {t.outboundConnections(), t.dialsInProgress(), t.reclaimedOutboundConnections()};
    }

    /**
     * Chains this server remembers for cancellation: where it sent them, hops of them running here,
     * cancelled ones whose request may still come (test hook: drains to zero once chains end).
     */
    int trackedChains() {
        return hops.trackedChains();
    }

    /**
     * Cancels of chains never seen here that this server forgot early, to keep its per-peer bound on
     * them (test hook: counts a flood of cancels for made-up chains).
     */
    long forgottenCancels() {
        return hops.forgottenCancels();
    }

    /** Trails this server forgot before their time, to keep its bounds on them (test hook). */
    long forgottenTrails() {
        return hops.forgottenTrails();
    }

    /** Chains parked here while a sub-chain they started runs (test hook: drains to zero once they return). */
    int parkedChains() {
        return hops.parkedChains();
    }

    /**
     * Sub-chain results returned to this server to resume a chain parked here (test hook: composed
     * sub-chains never come back).
     */
    long subChainReturns() {
        return hops.subChainReturns();
    }

    /** Sub-chains started here whose replies come through this server, still remembered (test hook). */
    int replyRelays() {
        return hops.replyRelays();
    }

    /**
     * Partial replies of sub-chains started here that could not be passed on to the chain's
     * originator (their reply handler threw, the originator could not be reached or did not read
     * them in time); each is logged on {@code io.rpcc.failures}.
     */
    public long relayedRepliesLost() {
        return hops.relayedRepliesLost();
    }

    /** Splits waiting here, their merge host, for their branches (test hook: drains to zero once chains end). */
    int waitingMerges() {
        return hops.waitingMerges();
    }

    /** Hops that arrived here and are not done yet (test hook: drains to zero once chains end). */
    int hopsInFlight() {
        return hops.hopsInFlight();
    }

    /** Reply streams of hops here with a reply window open (test hook: drains to zero once chains end). */
    int replyStreams() {
        return hops.replyStreams();
    }

    /** Hop requests this server refused because their chain had been cancelled (test hook). */
    long refusedAfterCancel() {
        return hops.refusedAfterCancel();
    }

    /**
     * Closes the server at once: the hops running here are abandoned (each one's originator gets a
     * {@link NodeClosedException} naming this server, if it can still be sent; a hop that already
     * passed the chain on is left to the originator's timeout), the chains this server started end
     * with a {@link NodeClosedException}, and it stops listening and closes its connections.
     * Idempotent.
     */
    @Override
    public void close() {
        stopWarmUp();
        node.close();
    }

    private void stopWarmUp() {
        ChainPathWarmUp w = chainPathWarmUp;
        if (w != null) {
            w.stop();
        }
    }

    /**
     * Closes the server gracefully: new hops are refused at once with a
     * {@link NodeShuttingDownException} (their service functions do not run, so their originators
     * can retry elsewhere); the hops running here get up to {@code grace} to finish (their replies
     * included); then the server {@link #close()}s.
     */
    public void shutdown(Duration grace) {
        stopWarmUp();
        node.shutdown(Objects.requireNonNull(grace, "grace"));
    }

    @Override
    public String toString() {
        return "RpccServer[" + name() + (address == null ? "" : " @ " + address) + "]";
    }

    /** Builds an {@link RpccServer}. */
    public static final class Builder extends NodeBuilder<Builder> {
        private final Map<String, ServiceFunction> services = new LinkedHashMap<>();
        private String chainingProxy;
        private boolean actsAsProxy;
        private final List<ServerInterceptor> interceptors = new ArrayList<>();
        private final List<HopDecorator> decorators = new ArrayList<>();
        private boolean composesSubChains = true;
        private ChainPolicy policy = ChainPolicy.ALLOW_ALL;
        private Duration staleBranchTimeout = Duration.ofMinutes(1);
        private final Set<String> idempotent = new HashSet<>();
        private int outcomeCacheEntries = 10_000;
        private long outcomeCacheBytes = 64L << 20;
        private Duration outcomeCacheTtl = Duration.ofSeconds(60);

        private Builder(String name) {
            super(name);
            BuilderAccess.fetchSourcesWith(this, node -> new RepositoryClient(node)::get); // hops run chaining functions here
        }

        /**
         * Registers {@code function} as service function {@code name}.
         *
         * @throws IllegalArgumentException if the name is taken, or is one that rpcc's own requests
         *     use ({@code rpcc.return}, {@code rpcc.merge}, {@code rpcc.split}, ...)
         */
        public Builder service(String name, ServiceFunction function) {
            Objects.requireNonNull(name, "name");
            Objects.requireNonNull(function, "function");
            if (HopExecutor.isReserved(name)) {
                throw new IllegalArgumentException("service function name '" + name + "' is reserved for rpcc's own "
                        + "requests; pick another name");
            }
            if (services.putIfAbsent(name, function) != null) {
                throw new IllegalArgumentException("service function '" + name + "' is already registered");
            }
            return this;
        }

        /**
         * Registers {@code function} as service function {@code name}, which reads the hop's data stream
         * as it arrives (see {@link StreamingServiceFunction}): it starts when the hop's REQUEST has
         * arrived, while the data sent with it ({@code ChainCall.stream}, or a {@link io.rpcc.core.StreamedResult}
         * of the hop before) still flows in, within {@code streamWindowBytes} of room at this node.
         *
         * @throws IllegalArgumentException as {@link #service}
         */
        public Builder streamingService(String name, StreamingServiceFunction function) {
            Objects.requireNonNull(function, "function");
            return service(name, params -> function.apply(params, StreamInputs.current()));
        }

        /**
         * Registers {@code function} as service function {@code name} and declares it idempotent:
         * running it again with the same params does no harm (a read, a put of the same value), so
         * this server does not keep its outcomes for chains sent again (see
         * {@link #outcomeCache}): a retried chain runs it again, and its partial replies are sent
         * again. Service functions registered with {@link #service} are not idempotent: within the
         * outcome cache's window, a chain sent again replays what they returned instead of running them.
         */
        public Builder idempotentService(String name, ServiceFunction function) {
            service(name, function);
            idempotent.add(name);
            return this;
        }

        /**
         * The outcome cache (paper 3.9, idempotent retry; see docs/guides/errors-and-retry.md): for
         * each hop that runs here, this server keeps what its service function returned (or how it
         * failed) and what its chaining function chose, so that the same chain sent again (same id and
         * secret, {@code RetryPolicy} or {@code RpccClient.retransmit}) replays them instead of running
         * them. An outcome is kept {@code ttl} after its hop ended, at most {@code maxEntries} of them and
         * {@code maxBytes} of their values (estimated), the oldest dropped first; a chain sent again
         * after its outcomes were dropped runs those hops again. Defaults: 10,000 entries, 64 MiB,
         * 60 s. A zero for any of them turns the cache off.
         *
         * @throws IllegalArgumentException if a bound is negative
         */
        public Builder outcomeCache(int maxEntries, long maxBytes, Duration ttl) {
            if (maxEntries < 0 || maxBytes < 0 || ttl.isNegative()) {
                throw new IllegalArgumentException("outcomeCache bounds must not be negative, got " + maxEntries
                        + " entries, " + maxBytes + " bytes, " + ttl);
            }
            this.outcomeCacheEntries = maxEntries;
            this.outcomeCacheBytes = maxBytes;
            this.outcomeCacheTtl = ttl;
            return this;
        }

        /**
         * Registers every {@link ServiceMethod} method of {@code target} as a service function: those
         * its class declares and those of the interfaces it implements (service interfaces, which a
         * {@code SequentialChain} calls with typed calls). A method with several parameters takes its
         * params as a {@code List} of that many values ({@link ServiceMethod}); a method whose last
         * parameter is an {@code InputStream} reads the hop's data stream there, as a
         * {@link #streamingService}, the params going to the parameters before it.
         *
         * @throws IllegalArgumentException if it has none, one is static, two claim one name, or a
         *     streaming one is declared idempotent
         */
        public Builder services(Object target) {
            int found = 0;
            for (Map.Entry<String, Method> e : ServiceMethods.of(target.getClass()).entrySet()) {
                Method m = e.getValue(); // an interface's method calls the target's implementation
                String name = e.getKey();
                m.setAccessible(true);
                boolean isIdempotent = m.getAnnotation(ServiceMethod.class).idempotent();
                if (ServiceMethods.takesStream(m)) {
                    if (isIdempotent) {
                        throw new IllegalArgumentException("@ServiceMethod " + m + " reads a data stream (its last"
                                + " parameter is an InputStream), which is read once: it cannot be idempotent");
                    }
                    streamingService(name, (params, data) -> invoke(target, m, ServiceMethods.arguments(m, params, data)));
                } else {
                    service(name, params -> invoke(target, m, ServiceMethods.arguments(m, params)));
                    if (isIdempotent) {
                        idempotent.add(name);
                    }
                }
                found++;
            }
            if (found == 0) {
                throw new IllegalArgumentException(target.getClass().getName() + " has no @ServiceMethod methods");
            }
            return this;
        }

        private static Object invoke(Object target, Method m, Object[] arguments) throws Exception {
            try {
                return m.invoke(target, arguments);
            } catch (InvocationTargetException ex) {
                Throwable cause = ex.getCause();
                if (cause instanceof Exception x) {
                    throw x;
                }
                throw (Error) cause;
            }
        }

        /**
         * Runs this server's chaining functions at {@code proxyNode} instead of here (paper 7.3):
         * after each service function, the result, state and chaining function go to the proxy,
         * which decides and sends the next hop. Useful to keep client code off a busy server; the
         * proxy should be close by, since this adds one (short) crossing per hop.
         */
        @UnstableApi
        public Builder chainingProxy(String proxyNode) {
            this.chainingProxy = Objects.requireNonNull(proxyNode, "proxyNode");
            return this;
        }

        /** Lets this server run chaining functions on behalf of servers that name it as their proxy. */
        @UnstableApi
        public Builder actAsChainingProxy() {
            this.actsAsProxy = true;
            return this;
        }

        /**
         * Makes this server a chaining-function repository node serving {@code store} (paper 3.2):
         * clients built with {@code RpccClient.builder().repository(name)} upload their large
         * chaining functions here once, and nodes fetch a function they have not compiled yet by
         * its id. A server may be a repository and host other service functions too.
         *
         * <pre>{@code
         * RpccServer repo = RpccServer.builder("repo").resolver(names)
         *     .repository(new FileSystemChainingFunctionRepository(Path.of("/var/lib/rpcc/functions")))
         *     .build().start();
         * }</pre>
         *
         * @throws IllegalArgumentException if this server already serves a repository
         */
        public Builder repository(ChainingFunctionRepository store) {
            RepositoryEndpoint endpoint = new RepositoryEndpoint(Objects.requireNonNull(store, "store"));
            // content-addressed: storing or reading a function again changes nothing
            return idempotentService(RepositoryProtocol.PUT, endpoint::put).idempotentService(RepositoryProtocol.GET,
                    endpoint::get);
        }

        /**
         * Runs {@code interceptor} around every hop of this server (see {@link ServerInterceptor});
         * interceptors run in the order they are added, the first one outermost.
         */
        @UnstableApi
        public Builder interceptor(ServerInterceptor interceptor) {
            interceptors.add(Objects.requireNonNull(interceptor, "interceptor"));
            return this;
        }

        /**
         * Runs {@code decorator} around every hop of this server and tells it how each ended (see
         * {@link HopDecorator}); decorators run in the order they are added, the first one outermost
         * (and outside the {@linkplain #interceptor interceptors}), and their listeners are told in the
         * opposite order.
         */
        @UnstableApi
        public Builder decorator(HopDecorator decorator) {
            decorators.add(Objects.requireNonNull(decorator, "decorator"));
            return this;
        }

        /**
         * Decides, before each service hop, whether the chain's originator (verified between TLS
         * nodes), previous hop and sub-chain creator may call its service function, and how isolated
         * it runs (see {@link ChainPolicy}); default {@link ChainPolicy#ALLOW_ALL}. A refusal reaches
         * the originator as a {@link io.rpcc.core.PermissionDeniedException} naming this server's hop.
         */
        public Builder policy(ChainPolicy policy) {
            this.policy = Objects.requireNonNull(policy, "policy");
            return this;
        }

        /**
         * The default policy and {@link AllowListPolicy} (the standalone node's) isolate the functions of
         * unverified chains; one of the server's own may not.
         */
        @Override
        protected boolean isolatesUnverifiedChains() {
            return policy == ChainPolicy.ALLOW_ALL || policy instanceof AllowListPolicy;
        }

        /**
         * Whether the sub-chains this server's service functions start are composed with their parent
         * chains (paper 3.4, Fig. 5c; on by default): the node where a sub-chain ends runs the parent's
         * chaining function itself and the chain goes on from there, instead of the sub-chain's result
         * coming back here first. A {@link SubChain#composition(boolean)} set on a
         * sub-chain wins over this. Off, every sub-chain returns here: one crossing more, and the
         * result passes through this server, as with an RPC to the sub-chain's servers.
         */
        public Builder subChainComposition(boolean on) {
            this.composesSubChains = on;
            return this;
        }

        /**
         * How long this server, as the merge host of a split chain ({@link io.rpcc.core.NextHop#split}),
         * waits for the outcomes of all its branches (default 1 minute, paper 3.10; never longer than
         * the chain's deadline plus 5 s). A split still incomplete then is dropped with the outcomes it
         * holds (a branch crashed, or is slower than this): logged and counted in
         * {@link ServerStats#droppedBranchOutcomes()}, as are outcomes that arrive for it later; the
         * chain ends at its originator by its timeout.
         *
         * @throws IllegalArgumentException if {@code timeout} is not positive
         */
        public Builder staleBranchTimeout(Duration timeout) {
            if (timeout.isNegative() || timeout.isZero()) {
                throw new IllegalArgumentException("staleBranchTimeout must be positive, got " + timeout);
            }
            this.staleBranchTimeout = timeout;
            return this;
        }

        /** The server (not started). */
        public RpccServer build() {
            HopSettings hopSettings = new HopSettings(services, idempotent, new HopSettings.Around(interceptors, decorators, policy),
                    new HopSettings.ChainingProxy(chainingProxy, actsAsProxy), composesSubChains, staleBranchTimeout,
                    new HopSettings.OutcomeCache(outcomeCacheEntries, outcomeCacheBytes, outcomeCacheTtl));
            Node node = new Node(BuilderAccess.settingsOf(this));
            return new RpccServer(node, new HopExecutor(node, hopSettings), Collections.unmodifiableSet(new LinkedHashSet<>(services.keySet())));
        }
    }
}
