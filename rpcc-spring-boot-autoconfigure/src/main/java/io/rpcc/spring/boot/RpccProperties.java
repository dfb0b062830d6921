package io.rpcc.spring.boot;

import io.rpcc.client.StateFallback;
import io.rpcc.core.FunctionIsolation;
import io.rpcc.core.OutboundPolicy;
import io.rpcc.core.SocketTransport;
import io.rpcc.core.runtime.NodeBuilder;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.jspecify.annotations.Nullable;
import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.util.unit.DataSize;

/**
 * The {@code rpcc.*} properties of a Spring Boot application: the names and addresses of the other
 * nodes, the serializable types, and the settings of the application's server and client. A setting
 * left unset keeps rpcc's default (given on each property).
 *
 * <pre>
 * rpcc.peers.shipping=10.0.0.7:7002
 * rpcc.types=com.acme.Order,com.acme.Quote
 * rpcc.types-packages=com.acme.model
 * rpcc.server.name=catalog
 * rpcc.server.bind=0.0.0.0
 * rpcc.server.port=7001
 * rpcc.client.timeout=5s
 * rpcc.client.state-fallback=adaptive
 * rpcc.server.stream-buffer-bytes=128MB
 * </pre>
 */
@ConfigurationProperties("rpcc")
public class RpccProperties {

    /**
     * The other nodes this application's server and client reach, by name: node name to
     * "host:port". The application's own server is added under its name once it listens.
     */
    private Map<String, String> peers = new LinkedHashMap<>();

    /**
     * The application's serializable types (parameters, results, state values), registered the same
     * way on every node, in addition to the @RpccType classes of rpcc.types-packages and the
     * registrations of an application's own TypeRegistry bean.
     */
    private List<Class<?>> types = new ArrayList<>();

    /**
     * The packages (with their sub-packages) scanned for classes annotated with @io.rpcc.core.RpccType,
     * which are registered with the annotation's id. Default: the packages of the @SpringBootApplication
     * (its auto-configuration packages); an empty value scans nothing.
     */
    private @Nullable List<String> typesPackages;

    /**
     * How long the server and the client drain (running hops and chains finish) when the application
     * context closes, before they close. Default: spring.lifecycle.timeout-per-shutdown-phase (30s).
     */
    private @Nullable Duration shutdownGrace;

    private final Server server = new Server();

    private final Client client = new Client();

    private final Tracing tracing = new Tracing();

    private final Metrics metrics = new Metrics();

    public Map<String, String> getPeers() {
        return peers;
    }

    public void setPeers(Map<String, String> peers) {
        this.peers = peers;
    }

    public List<Class<?>> getTypes() {
        return types;
    }

    public void setTypes(List<Class<?>> types) {
        this.types = types;
    }

    public @Nullable List<String> getTypesPackages() {
        return typesPackages;
    }

    public void setTypesPackages(@Nullable List<String> typesPackages) {
        this.typesPackages = typesPackages;
    }

    public @Nullable Duration getShutdownGrace() {
        return shutdownGrace;
    }

    public void setShutdownGrace(@Nullable Duration shutdownGrace) {
        this.shutdownGrace = shutdownGrace;
    }

    public Server getServer() {
        return server;
    }

    public Client getClient() {
        return client;
    }

    public Tracing getTracing() {
        return tracing;
    }

    public Metrics getMetrics() {
        return metrics;
    }

    /**
     * Traces of chains ({@code io.rpcc.observability.RpccTracing}), applied to the auto-configured
     * server and client when the application has an {@code ObservationRegistry} bean.
     */
    public static class Tracing {

        /**
         * Whether the auto-configured server and client record a span per hop and per chain in the
         * application's ObservationRegistry, and carry the W3C trace context in the chain's metadata.
         * Takes effect only when the application has an ObservationRegistry bean (the actuator makes one).
         */
        private boolean enabled = true;

        public boolean isEnabled() {
            return enabled;
        }

        public void setEnabled(boolean enabled) {
            this.enabled = enabled;
        }
    }

    /**
     * Metrics of chains, hops and nodes ({@code io.rpcc.observability.RpccMetrics}), applied to and
     * bound to the auto-configured server and client when the application has a {@code MeterRegistry} bean.
     */
    public static class Metrics {

        /**
         * Whether the auto-configured server and client record rpcc's meters in the application's
         * MeterRegistry. Takes effect only when the application has a MeterRegistry bean (the actuator
         * makes one).
         */
        private boolean enabled = true;

        public boolean isEnabled() {
            return enabled;
        }

        public void setEnabled(boolean enabled) {
            this.enabled = enabled;
        }
    }

    /** Settings that servers and clients share: where the node listens and its transport limits. */
    public abstract static class Node {

        /**
         * Whether to run this node.
         */
        private boolean enabled = true;

        /**
         * The address to listen on ("0.0.0.0" for every interface).
         */
        private String bind = "127.0.0.1";

        /**
         * The port to listen on; 0 picks a free one.
         */
        private int port = 0;

        /**
         * The host other nodes use to reach this one. Default: the bound address, or the local
         * host's address when bound to every interface.
         */
        private @Nullable String advertisedHost;

        /**
         * The largest frame this node sends or accepts. Default: 16MB.
         */
        private @Nullable DataSize maxFrameSize;

        /**
         * How long connecting to a peer (and its handshake) may take. Default: 5s.
         */
        private @Nullable Duration connectTimeout;

        /**
         * The hop limit this node enforces. Default: 2000.
         */
        private @Nullable Integer maxHops;

        /**
         * How long an inbound connection has to send its HELLO. Default: 10s.
         */
        private @Nullable Duration handshakeTimeout;

        /**
         * How long a connection may carry no frame before it is closed; 0 for never. Default: 5m.
         */
        private @Nullable Duration idleTimeout;

        /**
         * How many inbound connections the node holds at once. Default: 1024.
         */
        private @Nullable Integer maxInboundConnections;

        /**
         * How many inbound connections the node holds at once from one IP address. Default: 256.
         */
        private @Nullable Integer maxInboundConnectionsPerAddress;

        /**
         * How many connections the node opens to other nodes and holds open at once. Default: 1024.
         */
        private @Nullable Integer maxOutboundConnections;

        /**
         * How many connection attempts the node has under way at once. Default: 64.
         */
        private @Nullable Integer maxDialsInProgress;

        /**
         * Which addresses named in a chain's header the node connects to: VOUCHED (only those vouched
         * for: known to the name resolver, the address the request came from, or named by a known or
         * authenticated node) or ANY (a trusted network only). Default: VOUCHED.
         */
        private @Nullable OutboundPolicy outboundPolicy;

        /**
         * The socket transport of the node's connections: NIO, AUTO (Linux's native epoll where it is
         * available and loads, NIO elsewhere; never fails the start) or EPOLL (the start fails, saying
         * why, where epoll is unavailable). Default: NIO.
         */
        private @Nullable SocketTransport transport;

        /**
         * The most bytes of all the hops' data streams arriving at this node that it holds at once,
         * over all connections: buffered, or granted to their senders and on the way; at least 256KB.
         * Stream data is held on the heap; a new stream that does not fit is refused. Default: 64MB, or a
         * quarter of the heap if that is less.
         */
        private @Nullable DataSize streamBufferBytes;

        /**
         * The fraction of the stream buffer ({@code stream-buffer-bytes}) that the data streams arriving
         * from one remote IP address may hold together (more than 0, at most 1; never less than 256KB), so
         * that one peer cannot take the whole buffer; nodes on one host or behind one NAT share it.
         * Default: 0.5.
         */
        private @Nullable Double streamBufferShare;

        /**
         * The most bytes of one data stream this node holds at once (the stream's window: its sender
         * may have this much sent and not yet read); at least 256KB. A window of the link's bandwidth
         * times its round trip keeps a long, fast link busy. Default: 4MB.
         */
        private @Nullable DataSize streamWindowBytes;

        /**
         * The most bytes of a data stream this node puts in one frame (never over a peer's frame limit).
         * Default: 64KB.
         */
        private @Nullable DataSize streamChunkBytes;

        /**
         * How many data streams one connection may have open toward this node at once; more are
         * refused. Default: 256.
         */
        private @Nullable Integer maxStreamsPerConnection;

        /**
         * How long a data stream arriving here may see neither data nor a read by its service function
         * before it is ended. Default: 30s.
         */
        private @Nullable Duration streamIdleTimeout;

        public @Nullable DataSize getStreamBufferBytes() {
            return streamBufferBytes;
        }

        public void setStreamBufferBytes(@Nullable DataSize streamBufferBytes) {
            this.streamBufferBytes = streamBufferBytes;
        }

        public @Nullable Double getStreamBufferShare() {
            return streamBufferShare;
        }

        public void setStreamBufferShare(@Nullable Double streamBufferShare) {
            this.streamBufferShare = streamBufferShare;
        }

        public @Nullable DataSize getStreamWindowBytes() {
            return streamWindowBytes;
        }

        public void setStreamWindowBytes(@Nullable DataSize streamWindowBytes) {
            this.streamWindowBytes = streamWindowBytes;
        }

        public @Nullable DataSize getStreamChunkBytes() {
            return streamChunkBytes;
        }

        public void setStreamChunkBytes(@Nullable DataSize streamChunkBytes) {
            this.streamChunkBytes = streamChunkBytes;
        }

        public @Nullable Integer getMaxStreamsPerConnection() {
            return maxStreamsPerConnection;
        }

        public void setMaxStreamsPerConnection(@Nullable Integer maxStreamsPerConnection) {
            this.maxStreamsPerConnection = maxStreamsPerConnection;
        }

        public @Nullable Duration getStreamIdleTimeout() {
            return streamIdleTimeout;
        }

        public void setStreamIdleTimeout(@Nullable Duration streamIdleTimeout) {
            this.streamIdleTimeout = streamIdleTimeout;
        }

        public boolean isEnabled() {
            return enabled;
        }

        public void setEnabled(boolean enabled) {
            this.enabled = enabled;
        }

        public String getBind() {
            return bind;
        }

        public void setBind(String bind) {
            this.bind = bind;
        }

        public int getPort() {
            return port;
        }

        public void setPort(int port) {
            this.port = port;
        }

        public @Nullable String getAdvertisedHost() {
            return advertisedHost;
        }

        public void setAdvertisedHost(@Nullable String advertisedHost) {
            this.advertisedHost = advertisedHost;
        }

        public @Nullable DataSize getMaxFrameSize() {
            return maxFrameSize;
        }

        public void setMaxFrameSize(@Nullable DataSize maxFrameSize) {
            this.maxFrameSize = maxFrameSize;
        }

        public @Nullable Duration getConnectTimeout() {
            return connectTimeout;
        }

        public void setConnectTimeout(@Nullable Duration connectTimeout) {
            this.connectTimeout = connectTimeout;
        }

        public @Nullable Integer getMaxHops() {
            return maxHops;
        }

        public void setMaxHops(@Nullable Integer maxHops) {
            this.maxHops = maxHops;
        }

        public @Nullable Duration getHandshakeTimeout() {
            return handshakeTimeout;
        }

        public void setHandshakeTimeout(@Nullable Duration handshakeTimeout) {
            this.handshakeTimeout = handshakeTimeout;
        }

        public @Nullable Duration getIdleTimeout() {
            return idleTimeout;
        }

        public void setIdleTimeout(@Nullable Duration idleTimeout) {
            this.idleTimeout = idleTimeout;
        }

        public @Nullable Integer getMaxInboundConnections() {
            return maxInboundConnections;
        }

        public void setMaxInboundConnections(@Nullable Integer maxInboundConnections) {
            this.maxInboundConnections = maxInboundConnections;
        }

        public @Nullable Integer getMaxInboundConnectionsPerAddress() {
            return maxInboundConnectionsPerAddress;
        }

        public void setMaxInboundConnectionsPerAddress(@Nullable Integer maxInboundConnectionsPerAddress) {
            this.maxInboundConnectionsPerAddress = maxInboundConnectionsPerAddress;
        }

        public @Nullable Integer getMaxOutboundConnections() {
            return maxOutboundConnections;
        }

        public void setMaxOutboundConnections(@Nullable Integer maxOutboundConnections) {
            this.maxOutboundConnections = maxOutboundConnections;
        }

        public @Nullable Integer getMaxDialsInProgress() {
            return maxDialsInProgress;
        }

        public void setMaxDialsInProgress(@Nullable Integer maxDialsInProgress) {
            this.maxDialsInProgress = maxDialsInProgress;
        }

        public @Nullable OutboundPolicy getOutboundPolicy() {
            return outboundPolicy;
        }

        public void setOutboundPolicy(@Nullable OutboundPolicy outboundPolicy) {
            this.outboundPolicy = outboundPolicy;
        }

        public @Nullable SocketTransport getTransport() {
            return transport;
        }

        public void setTransport(@Nullable SocketTransport transport) {
            this.transport = transport;
        }
    }

    /** The application's server: it hosts the {@link RpccService} beans' service functions. */
    public static class Server extends Node {

        /**
         * The server's node name, unique among the nodes that talk to each other. Default:
         * spring.application.name.
         */
        private @Nullable String name;

        /**
         * How long preturn waits for room in the originator's reply buffer before it fails. Default: 30s.
         */
        private @Nullable Duration replyWriteTimeout;

        /**
         * How many compiled chaining functions the server keeps. Default: 256.
         */
        private @Nullable Integer functionCacheSize;

        /**
         * How many chaining functions the server compiles or queues for compilation at once. Default: 16.
         */
        private @Nullable Integer maxQueuedCompiles;

        /**
         * Whether the running server keeps the JVM alive (with a non-daemon thread), so that an
         * application without a web server, started with java -jar, serves until it is stopped.
         */
        private boolean keepAlive = true;

        private final Repository repository = new Repository();

        private final Functions functions = new Functions();

        public @Nullable String getName() {
            return name;
        }

        public boolean isKeepAlive() {
            return keepAlive;
        }

        public void setKeepAlive(boolean keepAlive) {
            this.keepAlive = keepAlive;
        }

        public void setName(@Nullable String name) {
            this.name = name;
        }

        public @Nullable Duration getReplyWriteTimeout() {
            return replyWriteTimeout;
        }

        public void setReplyWriteTimeout(@Nullable Duration replyWriteTimeout) {
            this.replyWriteTimeout = replyWriteTimeout;
        }

        public @Nullable Integer getFunctionCacheSize() {
            return functionCacheSize;
        }

        public void setFunctionCacheSize(@Nullable Integer functionCacheSize) {
            this.functionCacheSize = functionCacheSize;
        }

        public @Nullable Integer getMaxQueuedCompiles() {
            return maxQueuedCompiles;
        }

        public void setMaxQueuedCompiles(@Nullable Integer maxQueuedCompiles) {
            this.maxQueuedCompiles = maxQueuedCompiles;
        }

        public Repository getRepository() {
            return repository;
        }

        public Functions getFunctions() {
            return functions;
        }
    }

    /** How the application's server runs chaining functions. */
    public static class Functions {

        private final JavaFunctions java = new JavaFunctions();

        private final Precompile precompile = new Precompile();

        public Precompile getPrecompile() {
            return precompile;
        }

        public JavaFunctions getJava() {
            return java;
        }
    }

    /**
     * The chaining functions the application's server knows at start: its ChainingFunctionSource beans,
     * compiled into its function cache in the background after it started (the context does not wait),
     * so that the first chain naming one finds it compiled.
     */
    public static class Precompile {

        /** Whether the server compiles the application's ChainingFunctionSource beans at start. */
        private boolean beans = true;

        /** At most this many are compiled at start (never more than the function cache holds). Default: rpcc's (64). */
        private @Nullable Integer maxFunctions;

        /** None is started once this long has passed since the server started. Default: rpcc's (60s). */
        private @Nullable Duration budget;

        public boolean isBeans() {
            return beans;
        }

        public void setBeans(boolean beans) {
            this.beans = beans;
        }

        public @Nullable Integer getMaxFunctions() {
            return maxFunctions;
        }

        public void setMaxFunctions(@Nullable Integer maxFunctions) {
            this.maxFunctions = maxFunctions;
        }

        public @Nullable Duration getBudget() {
            return budget;
        }

        public void setBudget(@Nullable Duration budget) {
            this.budget = budget;
        }
    }

    /**
     * Where the application's server runs Java chaining functions: in its JVM or in function-runner
     * processes (small JVMs the server starts from its own class path, inside a Boot jar through
     * Boot's launcher), and how many of those.
     */
    public static class JavaFunctions {

        /**
         * Where the server runs Java chaining functions: IN_PROCESS (in its JVM, in the bytecode
         * sandbox), PROCESS (in function-runner processes, each with its own heap and operating-system
         * limits) or BY_TRUST (as the server's chain policy chose for the hop: by default in-process
         * for a verified originator, in a runner for any other). Written in-process, process or by-trust too.
         */
        private FunctionIsolation isolation = FunctionIsolation.IN_PROCESS;

        /**
         * The most Java functions that run in runner processes at once, each in a runner of its own.
         */
        private int runners = NodeBuilder.DEFAULT_FUNCTION_RUNNERS;

        /**
         * Idle runners kept started, so that a function does not wait for a JVM to start.
         */
        private int spareRunners = NodeBuilder.DEFAULT_SPARE_FUNCTION_RUNNERS;

        /**
         * The most functions that wait for a runner; more are refused with a retryable failure.
         */
        private int runnerQueue = NodeBuilder.DEFAULT_FUNCTION_RUNNER_QUEUE;

        /**
         * Each runner's heap (-Xmx), at least 16MB.
         */
        private DataSize runnerHeap = DataSize.ofMegabytes(NodeBuilder.DEFAULT_FUNCTION_RUNNER_HEAP_MEGABYTES);

        public FunctionIsolation getIsolation() {
            return isolation;
        }

        public void setIsolation(FunctionIsolation isolation) {
            this.isolation = isolation;
        }

        public int getRunners() {
            return runners;
        }

        public void setRunners(int runners) {
            this.runners = runners;
        }

        public int getSpareRunners() {
            return spareRunners;
        }

        public void setSpareRunners(int spareRunners) {
            this.spareRunners = spareRunners;
        }

        public int getRunnerQueue() {
            return runnerQueue;
        }

        public void setRunnerQueue(int runnerQueue) {
            this.runnerQueue = runnerQueue;
        }

        public DataSize getRunnerHeap() {
            return runnerHeap;
        }

        public void setRunnerHeap(DataSize runnerHeap) {
            this.runnerHeap = runnerHeap;
        }
    }

    /** Makes the application's server a chaining-function repository node. */
    public static class Repository {

        /**
         * Whether the server is a chaining-function repository that clients upload to and nodes fetch from.
         */
        private boolean enabled = false;

        /**
         * The directory the repository stores functions in. Default: kept in memory (lost on restart).
         */
        private @Nullable Path directory;

        public boolean isEnabled() {
            return enabled;
        }

        public void setEnabled(boolean enabled) {
            this.enabled = enabled;
        }

        public @Nullable Path getDirectory() {
            return directory;
        }

        public void setDirectory(@Nullable Path directory) {
            this.directory = directory;
        }
    }

    /** The application's client: it starts chains, and results come straight back to it. */
    public static class Client extends Node {

        /**
         * The client's node name, unique among the nodes that talk to each other: servers know a
         * chain by its originator's name and number, and send its result to that name, so two
         * instances (or the application's own server) must not share it. Default:
         * spring.application.name and a random suffix (e.g. "checkout-3f9a1c2e"), or "client-" and a
         * random suffix without one.
         */
        private @Nullable String name;

        /**
         * How long to wait for a chain's result unless the call says otherwise. Default: 30s.
         */
        private @Nullable Duration timeout;

        /**
         * How many partial replies a reply set holds unread, at most. Default: 1024.
         */
        private @Nullable Integer replyBufferSize;

        /**
         * How many bytes of partial replies a reply set holds unread, at most. Default: 16MB.
         */
        private @Nullable DataSize replyBufferBytes;

        /**
         * The repository node that stores this client's larger chaining functions. Default: none
         * (functions travel inline).
         */
        private @Nullable String repository;

        /**
         * The largest chaining-function source, in chars, that travels inline when a repository is set. Default: 2048.
         */
        private @Nullable Integer inlineFunctionLimit;

        /**
         * Whether a chain's state goes with its hops: NEVER (chain mode: always carried), ADAPTIVE (before
         * each hop whose chaining function needs the state, the client carries it or keeps it and runs
         * that step itself, whichever its link measurements say is faster; for states of hundreds of KB or
         * more on wide-area links) or ALWAYS (the state never leaves the client: every chaining function
         * runs there). A call's ChainCall.stateFallback overrides it. Default: NEVER.
         */
        private @Nullable StateFallback stateFallback;

        public @Nullable String getName() {
            return name;
        }

        public void setName(@Nullable String name) {
            this.name = name;
        }

        public @Nullable Duration getTimeout() {
            return timeout;
        }

        public void setTimeout(@Nullable Duration timeout) {
            this.timeout = timeout;
        }

        public @Nullable Integer getReplyBufferSize() {
            return replyBufferSize;
        }

        public void setReplyBufferSize(@Nullable Integer replyBufferSize) {
            this.replyBufferSize = replyBufferSize;
        }

        public @Nullable DataSize getReplyBufferBytes() {
            return replyBufferBytes;
        }

        public void setReplyBufferBytes(@Nullable DataSize replyBufferBytes) {
            this.replyBufferBytes = replyBufferBytes;
        }

        public @Nullable String getRepository() {
            return repository;
        }

        public void setRepository(@Nullable String repository) {
            this.repository = repository;
        }

        public @Nullable StateFallback getStateFallback() {
            return stateFallback;
        }

        public void setStateFallback(@Nullable StateFallback stateFallback) {
            this.stateFallback = stateFallback;
        }

        public @Nullable Integer getInlineFunctionLimit() {
            return inlineFunctionLimit;
        }

        public void setInlineFunctionLimit(@Nullable Integer inlineFunctionLimit) {
            this.inlineFunctionLimit = inlineFunctionLimit;
        }
    }
}
