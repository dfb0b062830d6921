package io.rpcc.core.runtime;

import io.rpcc.core.ChainingFunction;
import io.rpcc.core.ChainingFunctionCompileException;
import io.rpcc.core.ChainingFunctionSource;
import io.rpcc.core.FlowControlException;
import io.rpcc.core.MalformedFrameException;
import io.rpcc.core.NameResolver;
import io.rpcc.core.NodeTls;
import io.rpcc.core.OutboundPolicy;
import io.rpcc.core.Refusal;
import io.rpcc.core.FunctionIsolation;
import io.rpcc.core.SandboxLimits;
import io.rpcc.core.SocketTransport;
import io.rpcc.core.StaticNameResolver;
import io.rpcc.core.TypeRegistry;
import io.rpcc.core.UnstableApi;
import io.netty.channel.ChannelPipeline;
import io.netty.channel.EventLoopGroup;
import io.rpcc.core.internal.chain.BuilderAccess;
import io.rpcc.core.internal.chain.DefaultExecutor;
import io.rpcc.core.internal.chain.ExecutorOwner;
import io.rpcc.core.internal.chain.HopThreads;
import io.rpcc.core.internal.chain.Node;
import io.rpcc.core.internal.function.FunctionRuntime;
import io.rpcc.core.internal.function.RunnerPoolSettings;
import io.rpcc.core.internal.transport.ConnectionPolicy;
import io.rpcc.core.internal.transport.NodeTransport;
import io.rpcc.core.internal.transport.WireLimits;
import io.rpcc.core.internal.wire.Serialization;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.Executor;
import java.util.function.Consumer;
import org.jspecify.annotations.Nullable;

/**
 * Settings shared by every node, client or server: name, listening address, name resolver,
 * serializable types, executor and limits. See {@code RpccServer.builder} and
 * {@code RpccClient.builder}.
 *
 * @param <B> the concrete builder
 */
public abstract class NodeBuilder<B extends NodeBuilder<B>> {
    /** Default largest frame: 16 MiB. */
    public static final int DEFAULT_MAX_FRAME_SIZE = 16 * 1024 * 1024;
    /** Default hop limit (paper section 6). */
    public static final int DEFAULT_MAX_HOPS = 2000;
    /** The default bound of how many known chaining functions a node compiles at start ({@link #precompileBudget}). */
    public static final int DEFAULT_MAX_PRECOMPILED_FUNCTIONS = 64;
    /** The default time after start past which a node starts no compilation of a known function ({@link #precompileBudget}). */
    public static final Duration DEFAULT_PRECOMPILE_BUDGET = Duration.ofSeconds(60);
    /** Default limit of inbound connections a node holds at once. */
    public static final int DEFAULT_MAX_INBOUND_CONNECTIONS = 1024;
    /** Default limit of inbound connections a node holds at once from one IP address. */
    public static final int DEFAULT_MAX_INBOUND_CONNECTIONS_PER_ADDRESS = 256;
    /** Default limit of connections a node opens to others and holds open at once. */
    public static final int DEFAULT_MAX_OUTBOUND_CONNECTIONS = 1024;
    /** Default limit of connection attempts a node has under way at once. */
    public static final int DEFAULT_MAX_DIALS_IN_PROGRESS = 64;
    /** Default time an inbound connection has to send its HELLO: 10 s. */
    public static final Duration DEFAULT_HANDSHAKE_TIMEOUT = Duration.ofSeconds(10);
    /** Default time a connection may carry no frame either way before it is closed: 5 min. */
    public static final Duration DEFAULT_IDLE_TIMEOUT = Duration.ofMinutes(5);
    /** Default time a frame may take to arrive once its first bytes did: 2 min. */
    public static final Duration DEFAULT_FRAME_TIMEOUT = Duration.ofMinutes(2);
    /** Default bytes of partly received frames a node holds over all its connections: 256 MiB. */
    public static final long DEFAULT_MAX_PARTIAL_FRAME_BYTES = 256L << 20;
    /** Default bytes waiting to be written to one connection before it is closed: 64 MiB. */
    public static final long DEFAULT_MAX_QUEUED_WRITE_BYTES = 64L << 20;
    /** Default bytes waiting to be written to all of a node's connections together: 256 MiB. */
    public static final long DEFAULT_MAX_TOTAL_QUEUED_WRITE_BYTES = 256L << 20;
    /** Default frames one connection may have refused in a burst without being closed: 64. */
    public static final int DEFAULT_MAX_BAD_FRAMES_PER_CONNECTION = 64;
    /** Default refused frames a connection regains a minute: 60 (one a second). */
    public static final int DEFAULT_BAD_FRAME_REFILL_PER_MINUTE = 60;
    /** Default time a connection's write queue may make no progress before it is closed: 30 s. */
    public static final Duration DEFAULT_WRITE_STALL_TIMEOUT = Duration.ofSeconds(30);
    /** Default longest node name a peer may give (in HELLO or as a chain's originator): 255 characters. */
    public static final int DEFAULT_MAX_NODE_NAME_LENGTH = 255;
    /** Default of {@link #functionRunners}: Java functions running in runner processes at once, 2. */
    public static final int DEFAULT_FUNCTION_RUNNERS = RunnerPoolSettings.DEFAULT.runners();
    /** Default of {@link #functionRunners}: idle runner processes kept started, 2. */
    public static final int DEFAULT_SPARE_FUNCTION_RUNNERS = RunnerPoolSettings.DEFAULT.spares();
    /** Default of {@link #functionRunners}: Java functions that may wait for a runner, 32. */
    public static final int DEFAULT_FUNCTION_RUNNER_QUEUE = RunnerPoolSettings.DEFAULT.maxQueued();
    /** Default of {@link #functionRunners}: each runner's heap, 96 MiB. */
    public static final int DEFAULT_FUNCTION_RUNNER_HEAP_MEGABYTES = RunnerPoolSettings.DEFAULT.heapMegabytes();
    /** Default deepest nesting of a value: 128 levels (a list of lists of strings has 3). */
    public static final int DEFAULT_MAX_VALUE_DEPTH = Serialization.DEFAULT_MAX_DEPTH;
    /** Default of {@link #deadlineNetworkAllowance}: 1 ms per crossing. */
    public static final Duration DEFAULT_DEADLINE_NETWORK_ALLOWANCE = Duration.ofMillis(1);
    /** Default of {@link #heartbeatNetworkAllowance}: 200 ms per crossing (paper 3.9). */
    public static final Duration DEFAULT_HEARTBEAT_NETWORK_ALLOWANCE = Duration.ofMillis(200);

    /**
     * Default of {@link #transport}: {@link SocketTransport#NIO}. Epoll was not measurably faster for
     * rpcc's calls and chains (docs/benchmarks.md), so it is taken only when asked for.
     */
    public static final SocketTransport DEFAULT_TRANSPORT = SocketTransport.NIO;

    static {
        BuilderAccess.register(NodeBuilder::settings, (builder, fetcher) -> builder.sourceFetcher = fetcher);
    }

    private String name;
    private Node.SourceFetcher sourceFetcher = Node.SourceFetcher.NONE;
    private InetSocketAddress bind = new InetSocketAddress("127.0.0.1", 0);
    private String advertisedHost;
    private int maxFrameSize = DEFAULT_MAX_FRAME_SIZE;
    private Duration connectTimeout = Duration.ofSeconds(5);
    private EventLoopGroup eventLoopGroup;
    private SocketTransport socketTransport; // null: not set (DEFAULT_TRANSPORT, or the kind of the user's group)
    private NameResolver resolver = new StaticNameResolver();
    private TypeRegistry types = TypeRegistry.empty();
    private Executor executor;
    private int maxHops = DEFAULT_MAX_HOPS;
    private Duration replyWriteTimeout = Duration.ofSeconds(30);
    private SandboxLimits sandbox = SandboxLimits.DEFAULT;
    private ClassLoader functionClassLoader;
    private int functionCacheSize = 256;
    private final List<ChainingFunctionSource> knownFunctions = new ArrayList<>();
    private int maxPrecompiledFunctions = DEFAULT_MAX_PRECOMPILED_FUNCTIONS;
    private Duration precompileBudget = DEFAULT_PRECOMPILE_BUDGET;
    private FunctionIsolation functionIsolation = FunctionIsolation.IN_PROCESS;
    private RunnerPoolSettings functionRunners = RunnerPoolSettings.DEFAULT;
    private NodeTls tls;
    private int maxFunctionSourceChars = FunctionRuntime.DEFAULT_MAX_SOURCE_CHARS;
    private int maxQueuedCompiles = FunctionRuntime.DEFAULT_MAX_QUEUED_COMPILES;
    private int maxInboundConnections = DEFAULT_MAX_INBOUND_CONNECTIONS;
    private int maxInboundConnectionsPerAddress = DEFAULT_MAX_INBOUND_CONNECTIONS_PER_ADDRESS;
    private int maxOutboundConnections = DEFAULT_MAX_OUTBOUND_CONNECTIONS;
    private int maxDialsInProgress = DEFAULT_MAX_DIALS_IN_PROGRESS;
    private OutboundPolicy outboundPolicy = OutboundPolicy.VOUCHED;
    private Duration handshakeTimeout = DEFAULT_HANDSHAKE_TIMEOUT;
    private Duration idleTimeout = DEFAULT_IDLE_TIMEOUT;
    private Duration frameTimeout = DEFAULT_FRAME_TIMEOUT;
    private long maxPartialFrameBytes = DEFAULT_MAX_PARTIAL_FRAME_BYTES;
    private long maxQueuedWriteBytes = DEFAULT_MAX_QUEUED_WRITE_BYTES;
    private long maxTotalQueuedWriteBytes = DEFAULT_MAX_TOTAL_QUEUED_WRITE_BYTES;
    private int maxBadFramesPerConnection = DEFAULT_MAX_BAD_FRAMES_PER_CONNECTION;
    private WireLimits.StreamLimits streamLimits = WireLimits.StreamLimits.DEFAULT;
    private int badFrameRefillPerMinute = DEFAULT_BAD_FRAME_REFILL_PER_MINUTE;
    private long pauseReadingAboveQueuedBytes; // 0: half of the write-queue limit
    private Duration writeStallTimeout = DEFAULT_WRITE_STALL_TIMEOUT;
    private int maxNodeNameLength = DEFAULT_MAX_NODE_NAME_LENGTH;
    private int maxValueDepth = DEFAULT_MAX_VALUE_DEPTH;
    private Duration deadlineNetworkAllowance = DEFAULT_DEADLINE_NETWORK_ALLOWANCE;
    private Duration heartbeatNetworkAllowance = DEFAULT_HEARTBEAT_NETWORK_ALLOWANCE;
    private int ejectAfterFailures = 3;
    private Duration firstEjection = Duration.ofSeconds(1);
    private Consumer<ChannelPipeline> pipelineCustomizer = pipeline -> { };
    private ConnectionPolicy connections = ConnectionPolicy.DEFAULT;

    /** A builder for a node named {@code name}. */
    protected NodeBuilder(String name) {
        this.name = Objects.requireNonNull(name, "name");
    }

    @SuppressWarnings("unchecked")
    private B self() {
        return (B) this;
    }

    /** The node's name, unique among the nodes that talk to each other. */
    public B name(String name) {
        this.name = Objects.requireNonNull(name, "name");
        return self();
    }

    /** Listens on {@code address} (default {@code 127.0.0.1:0}: loopback, any free port). */
    public B listen(InetSocketAddress address) {
        this.bind = Objects.requireNonNull(address, "address");
        return self();
    }

    /** Listens on {@code port} of {@code host}. */
    public B listen(String host, int port) {
        return listen(new InetSocketAddress(host, port));
    }

    /**
     * The host other nodes use to reach this one (sent to the chain's hops so the last one can
     * reach the originator). Default: the bound address, or the local host's address if bound to
     * the wildcard address.
     */
    public B advertisedHost(@Nullable String host) {
        this.advertisedHost = host;
        return self();
    }

    /** The largest frame this node sends or accepts (default 16 MiB). */
    public B maxFrameSize(int bytes) {
        if (bytes < 1024) {
            throw new IllegalArgumentException("maxFrameSize must be at least 1024 bytes, got " + bytes);
        }
        this.maxFrameSize = bytes;
        return self();
    }

    /** How long connecting to a peer (and its handshake) may take (default 5 s). */
    public B connectTimeout(Duration timeout) {
        this.connectTimeout = Objects.requireNonNull(timeout, "timeout");
        return self();
    }

    /**
     * Connection health: a connection on which nothing was read for {@code pingInterval} (default
     * 10 s; {@link Duration#ZERO}: never) gets a PING, which the peer answers at once; if not a byte
     * arrives within {@code pingTimeout} after it (default 5 s), the peer is taken for dead, cut off
     * or stalled: the connection is closed (counted as {@link Refusal#SILENT_PEER}) and the next chain
     * to that peer connects again, or fails over to the name's next endpoint. PINGs do not keep an
     * idle connection open ({@link #idleTimeout}). Without PINGs, a connection to a machine that
     * vanished would take chains in, unanswered, until TCP gave up (many minutes).
     */
    public B connectionHealth(Duration pingInterval, Duration pingTimeout) {
        this.connections = new ConnectionPolicy(nonNegative(pingInterval, "pingInterval"),
                positive(pingTimeout, "pingTimeout"), connections.firstReconnectBackoff(),
                connections.maxReconnectBackoff());
        return self();
    }

    /**
     * Spacing of attempts to connect to a peer address that could not be reached: after two failed
     * attempts in a row (one costs nothing: a restarted peer is reached by the next try), sends to
     * that address fail at once (naming the failures) for {@code first} (default 100 ms), doubling with
     * each further failure up to {@code max} (default 5 s), with 20 % jitter; a connection made
     * forgets the failures. A name with backup endpoints fails over to the next one
     * at once meanwhile. {@link Duration#ZERO} for both: try every time.
     */
    public B reconnectBackoff(Duration first, Duration max) {
        nonNegative(first, "first");
        if (max.compareTo(first) < 0) {
            throw new IllegalArgumentException("reconnectBackoff: max (" + max + ") must not be below first (" + first + ")");
        }
        this.connections = new ConnectionPolicy(connections.pingInterval(), connections.pingTimeout(), first, max);
        return self();
    }

    /**
     * Netty event loops to use (default: a group shared by all nodes in the JVM that run on the same
     * {@link #transport}). Not shut down by the node. The node's connections are of the group's kind:
     * a {@code MultiThreadIoEventLoopGroup} of {@code NioIoHandler} or {@code EpollIoHandler}.
     */
    public B eventLoopGroup(@Nullable EventLoopGroup group) {
        this.eventLoopGroup = group;
        return self();
    }

    /**
     * Which socket transport the node's connections and event loops use (default
     * {@link #DEFAULT_TRANSPORT}, NIO): {@link SocketTransport#AUTO} takes Linux's native epoll where it
     * is available and loads, NIO elsewhere, and never fails the node's start;
     * {@link SocketTransport#EPOLL} fails the start, saying why, where epoll is unavailable;
     * {@link SocketTransport#NIO} is the JDK's transport. With an {@link #eventLoopGroup} of the
     * user's, the node runs on the group's kind: left unset or {@code AUTO}, the transport follows it;
     * the other kind fails the start. Nodes of either transport talk to each other; which one a node runs is reported by
     * {@code RpccServer.transport()} and {@code RpccClient.transport()}.
     */
    public B transport(SocketTransport transport) {
        this.socketTransport = Objects.requireNonNull(transport, "transport");
        return self();
    }

    /** Turns server names into addresses (default: an empty {@link StaticNameResolver}). */
    public B resolver(NameResolver resolver) {
        this.resolver = Objects.requireNonNull(resolver, "resolver");
        return self();
    }

    /** The user's serializable types; register the same ones on every node. */
    public B types(TypeRegistry types) {
        this.types = Objects.requireNonNull(types, "types");
        return self();
    }

    /**
     * Runs service functions, chaining functions and completion callbacks (default: a virtual
     * thread per task, except that a hop with a sandboxed Java chaining function starts on a
     * platform thread, which the sandbox needs). Never an event loop. An executor set here is
     * used for every hop as given.
     */
    public B executor(@Nullable Executor executor) {
        this.executor = executor;
        return self();
    }

    /** The hop limit this node enforces (default 2000). */
    public B maxHops(int maxHops) {
        if (maxHops < 1) {
            throw new IllegalArgumentException("maxHops must be at least 1, got " + maxHops);
        }
        this.maxHops = maxHops;
        return self();
    }

    /**
     * How long {@code preturn} waits when the originator does not read its partial replies fast
     * enough (its buffer is full) before it throws {@link FlowControlException} (default 30 s).
     */
    public B replyWriteTimeout(Duration timeout) {
        this.replyWriteTimeout = Objects.requireNonNull(timeout, "timeout");
        return self();
    }

    /**
     * The least a chain's deadline budget loses each time this node sends the chain on, besides the
     * time the chain spent at this node (default 1 ms). Each crossing is charged what the connection
     * it takes is measured to need one way (half its round trip, from the rpcc handshake and PINGs,
     * plus the round trip's deviation), or this allowance if that is more; nodes' clocks need not
     * agree. Raise it only for links whose round trip misleads (a route much longer one way than
     * the other, or large frames on a slow link); {@link Duration#ZERO} charges the measured time only.
     */
    public B deadlineNetworkAllowance(Duration allowance) {
        this.deadlineNetworkAllowance = nonNegative(allowance, "deadlineNetworkAllowance");
        return self();
    }

    /**
     * What a chain's time-to-heartbeat loses each time this node sends the chain on, besides the time
     * the chain spent at this node (default 200 ms, paper 3.9): a conservative estimate of the
     * crossing, so that a chain's heartbeats come at least as often as its originator asked even
     * though no clock measures the network. A larger value sends heartbeats earlier (more of them);
     * one below the real latency may let a slow crossing look like a broken chain.
     */
    public B heartbeatNetworkAllowance(Duration allowance) {
        this.heartbeatNetworkAllowance = nonNegative(allowance, "heartbeatNetworkAllowance");
        return self();
    }

    /**
     * Failover among the endpoints of a name (a {@link NameResolver#resolveAll} with several): an
     * endpoint that could not take a hop {@code consecutiveFailures} times in a row (default 3) is
     * tried after the others for {@code firstEjection} (default 1 s), doubling with each ejection in
     * a row up to 30 s; one success clears it. Ejected endpoints are still tried when no other one
     * can take the hop.
     */
    public B outlierEjection(int consecutiveFailures, Duration firstEjection) {
        Objects.requireNonNull(firstEjection, "firstEjection");
        if (consecutiveFailures < 1 || firstEjection.isNegative()) {
            throw new IllegalArgumentException("outlierEjection needs consecutiveFailures >= 1 and a firstEjection not"
                    + " negative, got " + consecutiveFailures + " and " + firstEjection);
        }
        this.ejectAfterFailures = consecutiveFailures;
        this.firstEjection = firstEjection;
        return self();
    }

    /**
     * Runs chaining functions in the sandbox with these limits (the default: {@link SandboxLimits#DEFAULT}).
     */
    public B sandbox(SandboxLimits limits) {
        this.sandbox = Objects.requireNonNull(limits, "limits");
        return self();
    }

    /**
     * Runs chaining functions without the sandbox: with the node's full privileges and no resource
     * limits. Only for chains from trusted clients, e.g. to measure the sandbox's cost.
     */
    public B withoutSandbox() {
        this.sandbox = null;
        return self();
    }

    /**
     * Where the node runs Java chaining functions ({@link FunctionIsolation}): in its JVM
     * ({@code IN_PROCESS}, the default of an embedded node), in function-runner processes
     * ({@code PROCESS}), or by who started the chain ({@code BY_TRUST}: as the server's chain policy
     * chose for the hop, by default in-process for a verified originator and in runner processes for
     * any other; the default of a standalone node). A node
     * without a sandbox ({@link #withoutSandbox()}) runs every function in-process.
     */
    public B functionIsolation(FunctionIsolation isolation) {
        this.functionIsolation = Objects.requireNonNull(isolation, "isolation");
        return self();
    }

    /**
     * Sizes the node's pool of function-runner processes (used by {@link #functionIsolation}
     * {@code PROCESS}, started with the node, and {@code BY_TRUST}, started with the node in plaintext
     * under the default chain policy, else with the first function that needs one): at most
     * {@code runners} invocations run at once, each in a runner JVM of its own with a heap of
     * {@code heapMegabytes} MiB; {@code spares} idle runners are kept started; at most
     * {@code queue} invocations wait for a runner, more are refused with a retryable failure.
     * Default: 2 runners, 2 spares, a queue of 32, 96 MiB heaps.
     */
    public B functionRunners(int runners, int spares, int queue, int heapMegabytes) {
        this.functionRunners = new RunnerPoolSettings(runners, spares, queue, heapMegabytes);
        return self();
    }

    /**
     * The class loader that Java chaining functions compile against and load through: a function may
     * name the classes this loader sees (the node's registered types, for example) and nothing else
     * of the application. The compiler reads class files through it, so any loader works: a Spring
     * Boot jar's, a standalone node's service jars, an application server's.
     *
     * <p>Default: the context class loader of the thread that builds the node, if rpcc's own classes
     * are visible to it (in a Spring Boot jar that is the jar's loader, in a standalone node the
     * loader of its service jars), else the loader of rpcc's classes.
     */
    public B functionClassLoader(ClassLoader loader) {
        this.functionClassLoader = Objects.requireNonNull(loader, "loader");
        return self();
    }

    /** The loader of {@link #functionClassLoader(ClassLoader)}, or its default. */
    private ClassLoader functionClassLoaderOrDefault() {
        if (functionClassLoader != null) {
            return functionClassLoader;
        }
        ClassLoader context = Thread.currentThread().getContextClassLoader();
        if (context != null) {
            try {
                if (Class.forName(ChainingFunction.class.getName(), false, context) == ChainingFunction.class) {
                    return context;
                }
            } catch (ClassNotFoundException | LinkageError e) {
                // a loader that cannot see rpcc: use rpcc's
            }
        }
        return ChainingFunction.class.getClassLoader();
    }

    /** How many compiled chaining functions the node keeps (default 256, least recently used evicted). */
    public B functionCacheSize(int functions) {
        if (functions < 1) {
            throw new IllegalArgumentException("functionCacheSize must be positive, got " + functions);
        }
        this.functionCacheSize = functions;
        return self();
    }

    /**
     * Chaining functions this node knows before any chain names them (those of the services it hosts,
     * say): the started node compiles them into its function cache on a low-priority background
     * thread, so the first chain that names one finds it compiled instead of waiting for javac or
     * GraalJS. {@code start()} does not wait for it, and a function that does not compile does not fail
     * the node: it is logged, and the first chain naming it gets the compile error, as without this.
     * A {@linkplain ChainingFunctionSource#reference reference} is fetched from its
     * repository at start (only those listed here: nothing else is prefetched). Bounded by
     * {@link #precompileBudget}. Adds to what earlier calls gave.
     */
    public B precompileFunctions(Collection<ChainingFunctionSource> functions) {
        for (ChainingFunctionSource f : Objects.requireNonNull(functions, "functions")) {
            knownFunctions.add(Objects.requireNonNull(f, "a function to precompile"));
        }
        return self();
    }

    /** As {@link #precompileFunctions(Collection)}. */
    public B precompileFunctions(ChainingFunctionSource... functions) {
        return precompileFunctions(List.of(functions));
    }

    /**
     * The bounds of compiling {@linkplain #precompileFunctions known functions} at start: at most
     * {@code maxFunctions} of them (default {@value #DEFAULT_MAX_PRECOMPILED_FUNCTIONS}, and never more
     * than {@link #functionCacheSize}), and none started once {@code budget} has passed since the node
     * started (default 60 s); the rest are compiled by the first chain that names each.
     */
    public B precompileBudget(int maxFunctions, Duration budget) {
        this.maxPrecompiledFunctions = positive(maxFunctions, "maxFunctions");
        Objects.requireNonNull(budget, "budget");
        if (budget.isNegative() || budget.isZero()) {
            throw new IllegalArgumentException("the precompile budget must be positive, got " + budget);
        }
        this.precompileBudget = budget;
        return self();
    }

    /**
     * Runs mutual TLS on every connection of this node, inbound and outbound, with this identity and
     * these trusted CAs (default: plaintext). Every node that talks to this one needs TLS too. The
     * certificate must carry the node's name (see {@link NodeTls} for the rule), or the node does not
     * start; peers are refused unless their certificates are signed by a trusted CA, valid, and carry
     * the names they claim.
     */
    public B tls(NodeTls tls) {
        this.tls = Objects.requireNonNull(tls, "tls");
        return self();
    }

    /**
     * The largest chaining-function source this node compiles, in chars (default 65,536); a larger
     * one fails its chain with a {@link ChainingFunctionCompileException} saying so.
     */
    public B maxFunctionSourceChars(int chars) {
        this.maxFunctionSourceChars = positive(chars, "maxFunctionSourceChars");
        return self();
    }

    /**
     * How many chaining functions this node compiles or lets wait for compilation at once (default
     * 16); while that many are, a chain whose function is not compiled yet fails at once with a
     * {@link ChainingFunctionCompileException} (retry later), so that a flood of new functions does
     * not delay chains whose functions are compiled.
     */
    public B maxQueuedCompiles(int compiles) {
        this.maxQueuedCompiles = positive(compiles, "maxQueuedCompiles");
        return self();
    }

    /**
     * How many inbound connections the node holds at once (default 1024); more are closed as soon
     * as they are accepted and counted as {@link Refusal#TOO_MANY_CONNECTIONS}.
     */
    public B maxInboundConnections(int connections) {
        this.maxInboundConnections = positive(connections, "maxInboundConnections");
        return self();
    }

    /**
     * How many inbound connections the node holds at once from one IP address (default 256); more
     * are closed as soon as they are accepted and counted as
     * {@link Refusal#TOO_MANY_CONNECTIONS_FROM_ADDRESS}. Nodes on one host share an address.
     */
    public B maxInboundConnectionsPerAddress(int connections) {
        this.maxInboundConnectionsPerAddress = positive(connections, "maxInboundConnectionsPerAddress");
        return self();
    }

    /**
     * How many connections the node opens to other nodes and holds open at once (default 1024),
     * attempts under way included: to send hops, results, replies and failures. At the bound the
     * least recently used connection that carried nothing for a second is closed to make room (the
     * next chain to that peer connects again); if none is idle, the send fails as if the peer were
     * unreachable and is counted as {@link Refusal#TOO_MANY_OUTBOUND_CONNECTIONS}. Connections peers
     * opened count against {@link #maxInboundConnections} instead.
     */
    public B maxOutboundConnections(int connections) {
        this.maxOutboundConnections = positive(connections, "maxOutboundConnections");
        return self();
    }

    /**
     * How many connection attempts (connect and handshake) the node has under way at once (default
     * 64); one more fails at once as if the peer were unreachable, counted as
     * {@link Refusal#TOO_MANY_OUTBOUND_CONNECTIONS}: a flood of chains naming addresses that do not
     * answer costs the node a bounded number of sockets.
     */
    public B maxDialsInProgress(int dials) {
        this.maxDialsInProgress = positive(dials, "maxDialsInProgress");
        return self();
    }

    /**
     * Which addresses named in a chain's header (originator, reply-to, return points) the node
     * connects to: {@link OutboundPolicy#VOUCHED} (default) takes only REQUESTs whose addresses are
     * vouched for, refusing the others before their hop runs; {@link OutboundPolicy#ANY} connects to
     * whatever a REQUEST names, for a network where every peer is trusted. See
     * docs/reference/security.md.
     */
    public B outboundPolicy(OutboundPolicy policy) {
        this.outboundPolicy = Objects.requireNonNull(policy, "policy");
        return self();
    }

    /**
     * How long an inbound connection has to send its HELLO (default 10 s); a connection that does
     * not is closed and counted as {@link Refusal#HANDSHAKE_TIMEOUT}.
     */
    public B handshakeTimeout(Duration timeout) {
        this.handshakeTimeout = positive(timeout, "handshakeTimeout");
        return self();
    }

    /**
     * How long a connection may carry no frame either way before it is closed (default 5 min;
     * {@link Duration#ZERO}: never), counted as {@link Refusal#IDLE_TIMEOUT}. The next chain to that
     * peer connects again.
     */
    public B idleTimeout(Duration timeout) {
        this.idleTimeout = nonNegative(timeout, "idleTimeout");
        return self();
    }

    /**
     * How long a frame may take to arrive once its first bytes did (default 2 min, enough for a
     * 16 MiB frame at 1 Mbit/s); a connection that trickles a frame slower is closed and counted as
     * {@link Refusal#SLOW_FRAME}.
     */
    public B frameTimeout(Duration timeout) {
        this.frameTimeout = positive(timeout, "frameTimeout");
        return self();
    }

    /**
     * How many bytes of partly received frames the node holds over all its connections (default
     * 256 MiB, and at least twice {@link #maxFrameSize}); the connection whose frame goes over is
     * closed and counted as {@link Refusal#PARTIAL_FRAMES_OVER_LIMIT}.
     */
    public B maxPartialFrameBytes(long bytes) {
        this.maxPartialFrameBytes = positive(bytes, "maxPartialFrameBytes");
        return self();
    }

    /**
     * How many bytes may wait to be written to one connection (default 64 MiB, and at least four
     * times {@link #maxFrameSize}): when a peer does not read what it is sent (partial replies wait
     * for it; results and errors do not), the connection is closed past this limit and counted as
     * {@link Refusal#WRITE_QUEUE_FULL}. Every frame counts, the answers to a peer's PINGs and
     * WINDOW_UPDATEs included, by the bytes it holds while it waits: its bytes and
     * 384 bytes of the objects kept with it (a small frame holds several times its length).
     */
    public B maxQueuedWriteBytes(long bytes) {
        this.maxQueuedWriteBytes = positive(bytes, "maxQueuedWriteBytes");
        return self();
    }

    /**
     * How many bytes may wait to be written to all of the node's connections together (default
     * 256 MiB, and at least {@link #maxQueuedWriteBytes}), counted as for {@link #maxQueuedWriteBytes}:
     * a peer that names many originators that read nothing, each reached on its own connection, cannot
     * make the node hold its per-connection limit many times over. Above three quarters of this limit
     * the connection holding the most is closed, one at a time; a frame that would go over it is refused
     * and its connection closed. Both count as {@link Refusal#WRITE_QUEUE_FULL}.
     */
    public B maxTotalQueuedWriteBytes(long bytes) {
        this.maxTotalQueuedWriteBytes = positive(bytes, "maxTotalQueuedWriteBytes");
        return self();
    }

    /**
     * How many frames a connection may have refused in a burst without being closed (default 64):
     * malformed frames, frames refused as {@link Refusal#CLASS_NAME}, {@link Refusal#VALUE_TOO_DEEP},
     * {@link Refusal#INVALID_ORIGIN} or {@link Refusal#FORGED_FRAME} when they arrive (a CANCEL of a
     * chain never seen here past its peer's 1,024 remembered ones included), REQUESTs refused as
     * {@link Refusal#UNVOUCHED_ADDRESS}, and PINGs dropped because the peer sent them faster than it
     * read their answers. Each takes one of the
     * connection's allowance, which grows back by {@link #badFrameRefillPerMinute} a minute up to this
     * number; a refused frame when none is left closes the connection, counted as
     * {@link Refusal#TOO_MANY_BAD_FRAMES}, and nothing more it sent is decoded. So a peer that keeps
     * sending bad frames is cut off after about this many, and an occasional refusal between honest
     * nodes is forgotten. Refused frames never count as the connection being used: they do not hold
     * it open past {@link #idleTimeout}.
     */
    public B maxBadFramesPerConnection(int frames) {
        this.maxBadFramesPerConnection = positive(frames, "maxBadFramesPerConnection");
        return self();
    }

    /**
     * How many bytes of one hop's data stream ({@code StreamingServiceFunction}) this node holds at
     * once, buffered or granted to its sender and on the way (default 4 MiB; at least 256 KiB, the
     * room every stream starts with). A service function that reads slowly holds back the stream's
     * sender, so this bounds what a stream costs the node however large it is. Larger windows keep
     * long, fast links busy (a window of at least the link's bandwidth times its round trip).
     */
    public B streamWindowBytes(int bytes) {
        this.streamLimits = new WireLimits.StreamLimits(bytes, streamLimits.chunkBytes(),
                streamLimits.maxStreamsPerConnection(), streamLimits.idleTimeout(), streamLimits.bufferBytes(),
                streamLimits.addressShare());
        return self();
    }

    /** The most bytes of a data stream this node puts in one frame (default 64 KiB; never over a peer's frame limit). */
    public B streamChunkBytes(int bytes) {
        this.streamLimits = new WireLimits.StreamLimits(streamLimits.windowBytes(), positive(bytes, "streamChunkBytes"),
                streamLimits.maxStreamsPerConnection(), streamLimits.idleTimeout(), streamLimits.bufferBytes(),
                streamLimits.addressShare());
        return self();
    }

    /**
     * How many data streams one connection may have open toward this node at once (default 256): a
     * REQUEST announcing one more is refused ({@link Refusal#TOO_MANY_STREAMS}): its service function
     * reads a {@code ChainStreamException} of reason {@code REFUSED}, and its sender is told to stop.
     */
    public B maxStreamsPerConnection(int streams) {
        this.streamLimits = new WireLimits.StreamLimits(streamLimits.windowBytes(), streamLimits.chunkBytes(),
                positive(streams, "maxStreamsPerConnection"), streamLimits.idleTimeout(),
                streamLimits.bufferBytes(), streamLimits.addressShare());
        return self();
    }

    /**
     * How long a data stream arriving here may see neither data from its sender nor a read by its
     * service function (default 30 s) before it is ended ({@link Refusal#STREAM_IDLE}): the reader gets a
     * {@code ChainStreamException} of reason {@code IDLE_TIMEOUT}, the sender is told to stop.
     */
    public B streamIdleTimeout(Duration timeout) {
        this.streamLimits = new WireLimits.StreamLimits(streamLimits.windowBytes(), streamLimits.chunkBytes(),
                streamLimits.maxStreamsPerConnection(), positive(timeout, "streamIdleTimeout"),
                streamLimits.bufferBytes(), streamLimits.addressShare());
        return self();
    }

    /**
     * How many bytes of all the hops' data streams arriving here this node holds at once, over all
     * connections: buffered, or granted to their senders and on the way (default 64 MiB, or a quarter
     * of the heap if that is less; at least 256 KiB). Stream data is held on the heap. When a new
     * stream's first 256 KiB would not fit, it is refused ({@link Refusal#STREAM_MEMORY}: its service
     * function reads a {@code ChainStreamException} of reason {@code REFUSED}, its sender is told to
     * stop); streams already open get more room only as the budget frees (as functions read, or
     * streams end). So many slow streams, or a hostile peer's, cannot exhaust the node's memory; and
     * one peer cannot hold all of it either ({@link #streamBufferShare}).
     */
    public B streamBufferBytes(long bytes) {
        this.streamLimits = new WireLimits.StreamLimits(streamLimits.windowBytes(), streamLimits.chunkBytes(),
                streamLimits.maxStreamsPerConnection(), streamLimits.idleTimeout(), bytes, streamLimits.addressShare());
        return self();
    }

    /**
     * The fraction of {@link #streamBufferBytes} that the data streams arriving from one remote IP
     * address may hold together, over all its connections (default 0.5, half; never less than the
     * 256 KiB one stream starts with). So one peer holding all the room it may, a hostile one or one
     * whose functions read slowly, still leaves room for other peers' streams: its own next stream is
     * refused ({@link Refusal#STREAM_MEMORY}), another address's is taken in. Peers are told apart by
     * address, not by the node name they give, which a peer without a certificate may choose freely;
     * nodes sharing an address (one host, a NAT) share one share. 1: no limit per address.
     *
     * @throws IllegalArgumentException if {@code share} is not more than 0 and at most 1
     */
    public B streamBufferShare(double share) {
        this.streamLimits = new WireLimits.StreamLimits(streamLimits.windowBytes(), streamLimits.chunkBytes(),
                streamLimits.maxStreamsPerConnection(), streamLimits.idleTimeout(), streamLimits.bufferBytes(), share);
        return self();
    }

    /**
     * How many refused frames a connection regains a minute, up to {@link #maxBadFramesPerConnection}
     * (default 60, one a second): the rate of bad frames a connection may send for ever without being
     * closed. 0: none is regained, and {@link #maxBadFramesPerConnection} counts over the connection's
     * lifetime.
     */
    public B badFrameRefillPerMinute(int frames) {
        if (frames < 0) {
            throw new IllegalArgumentException("badFrameRefillPerMinute must not be negative, got " + frames);
        }
        this.badFrameRefillPerMinute = frames;
        return self();
    }

    /**
     * Above how many bytes waiting to be written to a peer node this node stops reading the requests
     * that peer sends it (default: half of {@link #maxQueuedWriteBytes}), so that a peer that sends
     * requests and does not read their results gets no more of them run; reading resumes when every
     * connection to that peer is under the limit again. Peers are told apart by node name, not address;
     * only connections on which the peer sent requests are paused (a client's results keep flowing),
     * and per-chain reply windows are not affected. Nothing is refused or counted: the peer's requests
     * wait in the network. Set it at or above {@link #maxQueuedWriteBytes} to close such a
     * connection without pausing first.
     */
    public B pauseReadingAboveQueuedBytes(long bytes) {
        this.pauseReadingAboveQueuedBytes = positive(bytes, "pauseReadingAboveQueuedBytes");
        return self();
    }

    /**
     * How long what waits to be written to a connection may go without a byte of it being written
     * (default 30 s) before the connection is closed and counted as {@link Refusal#WRITE_STALLED}: a
     * peer that reads nothing is let go, and so are two nodes that each stopped reading the other's
     * requests ({@link #pauseReadingAboveQueuedBytes}). The chains whose frames were waiting fail.
     */
    public B writeStallTimeout(Duration timeout) {
        this.writeStallTimeout = positive(timeout, "writeStallTimeout");
        return self();
    }

    /**
     * The longest node name a peer may give, in its HELLO or as a chain's originator (default 255
     * characters); a longer one is refused ({@link Refusal#INVALID_HELLO}, {@link Refusal#INVALID_ORIGIN}).
     */
    public B maxNodeNameLength(int characters) {
        this.maxNodeNameLength = positive(characters, "maxNodeNameLength");
        return self();
    }

    /**
     * How deeply values (parameters, state, results, replies) may nest, in objects (default 128:
     * a list of lists of strings has 3). A deeper or cyclic value fails to send with a
     * {@link MalformedFrameException}; a deeper one received is refused ({@link Refusal#VALUE_TOO_DEEP})
     * and reported to the chain's originator. Use the same limit on every node.
     */
    public B maxValueDepth(int levels) {
        this.maxValueDepth = positive(levels, "maxValueDepth");
        return self();
    }

    /**
     * Adds Netty handlers to the pipeline of every connection of this node, inbound and outbound:
     * {@code customizer} runs once per connection, on its event loop, after rpcc has set the pipeline
     * up, and must not block. Calling this again adds another customizer, run after the earlier ones.
     *
     * <p>rpcc's handlers are named {@code "tls"} (with {@link #tls}: bytes on the wire), {@code "flush"}
     * (a burst of frames goes out in flushes of 1, 2, 4, ... frames, at most 64), {@code "health"}
     * (PINGs and the {@link #idleTimeout}), {@code "frames"} (bytes into rpcc frames) and {@code "rpcc"}
     * (frames to chains). Put handlers that look at traffic before {@code "frames"}:
     * {@code pipeline.addBefore("frames", "bytes", counter)} sees every frame's bytes, in and out, as
     * {@code ByteBuf}s (after TLS decryption); {@code pipeline.addFirst(...)} sees the bytes on the
     * wire. Handlers after {@code "frames"} would see rpcc's internal frame objects: do not rely on
     * them. Give each connection its own handler unless the handler is {@code @Sharable}. A customizer
     * that throws closes the connection (and is logged).
     *
     * <pre>{@code
     * builder.pipelineCustomizer(p -> p.addBefore("frames", "traffic", new TrafficCounter()));
     * }</pre>
     */
    @UnstableApi
    public B pipelineCustomizer(Consumer<ChannelPipeline> customizer) {
        Objects.requireNonNull(customizer, "customizer");
        this.pipelineCustomizer = this.pipelineCustomizer.andThen(customizer);
        return self();
    }

    private static Duration nonNegative(Duration value, String what) {
        Objects.requireNonNull(value, what);
        if (value.isNegative()) {
            throw new IllegalArgumentException(what + " must not be negative, got " + value);
        }
        return value;
    }

    private static int positive(int value, String what) {
        if (value < 1) {
            throw new IllegalArgumentException(what + " must be positive, got " + value);
        }
        return value;
    }

    private static long positive(long value, String what) {
        if (value < 1) {
            throw new IllegalArgumentException(what + " must be positive, got " + value);
        }
        return value;
    }

    private static Duration positive(Duration value, String what) {
        Objects.requireNonNull(value, what);
        if (value.isNegative() || value.isZero()) {
            throw new IllegalArgumentException(what + " must be positive, got " + value);
        }
        return value;
    }

    /**
     * Whether this node's chain policy runs the functions of a chain whose originator is not verified
     * in runner processes, as the default policy does (a server with a policy of its own may choose
     * otherwise: then a {@code BY_TRUST} node in plaintext starts its runner pool with the first function
     * that needs it, not with the node).
     */
    protected boolean isolatesUnverifiedChains() {
        return true;
    }

    /** The configured hop limit. */
    protected int maxHops() {
        return maxHops;
    }

    /** The node's name. */
    protected String name() {
        return name;
    }

    /** The settings for the node runtime (read by the facades through {@link BuilderAccess}). */
    Node.Settings settings() {
        Executor ex = executor != null ? executor : new DefaultExecutor(name);
        long queuedWriteBytes = Math.max(maxQueuedWriteBytes, 4L * maxFrameSize);
        WireLimits limits = new WireLimits(
                new WireLimits.InboundConnectionLimits(maxInboundConnections, maxInboundConnectionsPerAddress,
                        maxBadFramesPerConnection, badFrameRefillPerMinute),
                new WireLimits.ConnectionTimeouts(handshakeTimeout, idleTimeout, frameTimeout, writeStallTimeout),
                new WireLimits.BufferLimits(Math.max(maxPartialFrameBytes, 2L * maxFrameSize), queuedWriteBytes,
                        Math.max(maxTotalQueuedWriteBytes, queuedWriteBytes),
                        pauseReadingAboveQueuedBytes > 0 ? pauseReadingAboveQueuedBytes : queuedWriteBytes / 2),
                new WireLimits.ValueLimits(maxNodeNameLength, maxValueDepth),
                new WireLimits.OutboundConnectionLimits(maxOutboundConnections, maxDialsInProgress), streamLimits);
        NodeTransport.Config transport = new NodeTransport.Config(new NodeTransport.LocalEndpoint(name, bind, advertisedHost),
                maxFrameSize, connectTimeout, tls, limits, connections,
                new NodeTransport.NettyHooks(eventLoopGroup, pipelineCustomizer, executor != null,
                        socketTransport != null ? socketTransport : eventLoopGroup != null ? SocketTransport.AUTO : DEFAULT_TRANSPORT));
        return new Node.Settings(transport, new Node.Routing(resolver, ejectAfterFailures, firstEjection,
                outboundPolicy),
                new Node.ChainRules(maxHops, replyWriteTimeout, deadlineNetworkAllowance, heartbeatNetworkAllowance),
                types, new HopThreads(ex, executor != null ? ExecutorOwner.USER : ExecutorOwner.RPCC),
                FunctionRuntime.forNode(types, sandbox, functionCacheSize, maxFunctionSourceChars,
                maxQueuedCompiles, functionClassLoaderOrDefault()).isolated(functionIsolation, functionRunners,
                        functionIsolation == FunctionIsolation.PROCESS
                                || functionIsolation == FunctionIsolation.BY_TRUST && tls == null && isolatesUnverifiedChains())
                        .knowing(knownFunctions, Math.min(maxPrecompiledFunctions, functionCacheSize), precompileBudget),
                sourceFetcher);
    }
}
