package io.rpcc.node.internal;

import io.rpcc.core.NodeTls;
import io.rpcc.core.OutboundPolicy;
import io.rpcc.core.ChainingFunctionSource;
import io.rpcc.core.FunctionIsolation;
import io.rpcc.core.SandboxLimits;
import io.rpcc.core.SocketTransport;
import io.rpcc.server.AllowListPolicy;
import io.rpcc.server.RpccServer;
import java.net.InetAddress;
import java.net.URI;
import java.net.URISyntaxException;
import java.net.UnknownHostException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import org.jspecify.annotations.Nullable;

/**
 * The standalone node's configuration, every key parsed and checked at once (so a bad value stops
 * the node before it binds anything), and applied to a server builder by {@link #applyTo}.
 */
public final class NodeConfig {
    private static final Set<String> LOG_LEVELS = Set.of("trace", "debug", "info", "warn", "error", "off");

    private final String name;
    private final String bind;
    private final int port;
    private final String advertisedHost;
    private final PeerResolver peers;
    private final @Nullable Path repositoryDirectory;
    private final boolean proxyEnabled;
    private final @Nullable String proxyNode;
    private final Path servicesPath;
    private final boolean servicesPathRequired;
    private final List<String> servicesClasses;
    private final int healthPort;
    private final boolean metricsEnabled;
    private final @Nullable URI otlpEndpoint;
    private final Map<String, String> otlpHeaders;
    private final double samplingProbability;
    private final Duration shutdownGrace;
    private final String logLevel;
    private final @Nullable NodeTls tls;
    private final AllowListPolicy policy;
    private final @Nullable SandboxLimits sandbox;
    private final int maxFrameSize;
    private final int maxHops;
    private final int maxInboundConnections;
    private final int maxInboundConnectionsPerAddress;
    private final int maxOutboundConnections;
    private final int maxDialsInProgress;
    private final OutboundPolicy outboundPolicy;
    private final SocketTransport transport;
    private final long maxPartialFrameBytes;
    private final long maxQueuedWriteBytes;
    private final long maxTotalQueuedWriteBytes;
    private final int maxBadFramesPerConnection;
    private final int badFrameRefillPerMinute;
    private final int maxNodeNameLength;
    private final int maxValueDepth;
    private final int functionCacheSize;
    private final int maxFunctionSourceChars;
    private final int maxQueuedCompiles;
    private final FunctionIsolation functionIsolation;
    private final int functionRunners;
    private final int spareFunctionRunners;
    private final int functionRunnerQueue;
    private final int functionRunnerHeapMegabytes;
    private final List<ChainingFunctionSource> knownFunctions;
    private final int maxPrecompiledFunctions;
    private final Duration precompileBudget;
    private final @Nullable Long streamBufferBytes;
    private final double streamBufferShare;
    private final int streamWindowBytes;
    private final int streamChunkBytes;
    private final int maxStreamsPerConnection;
    private final Duration streamIdleTimeout;
    private final LegacyEndpoints legacyEndpoints;
    private final Duration connectTimeout;
    private final Duration handshakeTimeout;
    private final Duration idleTimeout;
    private final Duration frameTimeout;
    private final Duration replyWriteTimeout;
    private final Duration deadlineNetworkAllowance;

    /**
     * Parses and checks every key of {@code values}.
     *
     * @throws ConfigException for the first key whose value is missing or wrong
     */
    public NodeConfig(ConfigValues values) {
        name = values.required(ConfigKey.NAME, "the node's name, unique among the nodes it talks to");
        maxNodeNameLength = values.integer(ConfigKey.MAX_NODE_NAME_LENGTH, 1, 65_535);
        if (name.length() > maxNodeNameLength) {
            throw values.invalid(ConfigKey.NAME, "a name of at most " + maxNodeNameLength + " characters ("
                    + ConfigKey.MAX_NODE_NAME_LENGTH.key() + ")");
        }
        bind = values.required(ConfigKey.BIND, "a local address to listen on, such as 0.0.0.0 or 127.0.0.1");
        InetAddress bindAddress;
        try {
            bindAddress = InetAddress.getByName(bind);
        } catch (UnknownHostException e) {
            throw values.invalid(ConfigKey.BIND, "a local address to listen on, such as 0.0.0.0 or 127.0.0.1 (unknown host)");
        }
        port = values.integer(ConfigKey.PORT, 0, 65_535);
        String advertised = values.text(ConfigKey.ADVERTISED_HOST);
        advertisedHost = advertised != null ? advertised : defaultAdvertisedHost(bindAddress);
        String transportName = values.required(ConfigKey.TRANSPORT, "auto, epoll or nio").trim().toLowerCase(Locale.ROOT);
        transport = switch (transportName) {
            case "auto" -> SocketTransport.AUTO;
            case "epoll" -> SocketTransport.EPOLL;
            case "nio" -> SocketTransport.NIO;
            default -> throw values.invalid(ConfigKey.TRANSPORT, "auto (Linux's native epoll where it loads, NIO "
                    + "elsewhere), epoll (fail to start without it) or nio");
        };
        peers = PeerResolver.parse(values);
        repositoryDirectory = values.bool(ConfigKey.REPOSITORY_ENABLED)
                ? Path.of(values.required(ConfigKey.REPOSITORY_DIRECTORY, "the directory of the repository's store"))
                : null;
        if (repositoryDirectory != null && Files.exists(repositoryDirectory) && !Files.isDirectory(repositoryDirectory)) {
            throw values.invalid(ConfigKey.REPOSITORY_DIRECTORY, "a directory (it is a file)");
        }
        proxyEnabled = values.bool(ConfigKey.PROXY_ENABLED);
        proxyNode = values.text(ConfigKey.PROXY_NODE);
        if (proxyNode != null && !peers.knows(proxyNode)) {
            throw values.invalid(ConfigKey.PROXY_NODE, "the name of a node listed in " + ConfigKey.PEERS.key()
                    + " (the chaining proxy this node hands its chaining functions to)");
        }
        servicesPath = Path.of(values.required(ConfigKey.SERVICES_PATH, "a directory of service jars"));
        servicesPathRequired = values.isSet(ConfigKey.SERVICES_PATH);
        if (servicesPathRequired && !Files.isDirectory(servicesPath)) {
            throw values.invalid(ConfigKey.SERVICES_PATH, "a directory of service jars (" + servicesPath.toAbsolutePath()
                    + " is not a directory)");
        }
        String classes = values.text(ConfigKey.SERVICES_CLASSES);
        servicesClasses = classes == null ? List.of()
                : Arrays.stream(classes.split(",")).map(String::trim).filter(s -> !s.isEmpty()).toList();
        healthPort = values.integer(ConfigKey.HEALTH_PORT, 0, 65_535);
        if (healthPort != 0 && healthPort == port) {
            throw values.invalid(ConfigKey.HEALTH_PORT, "a port other than " + ConfigKey.PORT.key() + " (" + port
                    + "), or 0 to turn the health endpoint off");
        }
        metricsEnabled = values.bool(ConfigKey.METRICS_ENABLED);
        otlpEndpoint = otlpEndpoint(values);
        otlpHeaders = otlpHeaders(values);
        samplingProbability = samplingProbability(values);
        shutdownGrace = values.duration(ConfigKey.SHUTDOWN_GRACE, true);
        logLevel = values.required(ConfigKey.LOG_LEVEL, "one of " + LOG_LEVELS).toLowerCase(Locale.ROOT);
        if (!LOG_LEVELS.contains(logLevel)) {
            throw values.invalid(ConfigKey.LOG_LEVEL, "one of trace, debug, info, warn, error, off");
        }
        tls = tls(values);
        policy = new AllowListPolicy(allowList(values), values.bool(ConfigKey.POLICY_REQUIRE_AUTHENTICATED_ORIGINATOR));
        sandbox = values.bool(ConfigKey.SANDBOX_ENABLED)
                ? new SandboxLimits(values.duration(ConfigKey.SANDBOX_CPU_TIME, false),
                        values.bytes(ConfigKey.SANDBOX_MEMORY, 1, Long.MAX_VALUE),
                        values.duration(ConfigKey.SANDBOX_WALL_TIME, false))
                : null;
        maxFrameSize = (int) values.bytes(ConfigKey.MAX_FRAME_SIZE, 1024, Integer.MAX_VALUE);
        maxHops = values.integer(ConfigKey.MAX_HOPS, 1, Integer.MAX_VALUE);
        maxInboundConnections = values.integer(ConfigKey.MAX_INBOUND_CONNECTIONS, 1, Integer.MAX_VALUE);
        maxInboundConnectionsPerAddress = values.integer(ConfigKey.MAX_INBOUND_CONNECTIONS_PER_ADDRESS, 1, Integer.MAX_VALUE);
        maxOutboundConnections = values.integer(ConfigKey.MAX_OUTBOUND_CONNECTIONS, 1, Integer.MAX_VALUE);
        maxDialsInProgress = values.integer(ConfigKey.MAX_DIALS_IN_PROGRESS, 1, Integer.MAX_VALUE);
        String policy = values.required(ConfigKey.OUTBOUND_POLICY, "vouched or any").trim().toLowerCase(Locale.ROOT);
        outboundPolicy = switch (policy) {
            case "vouched" -> OutboundPolicy.VOUCHED;
            case "any" -> OutboundPolicy.ANY;
            default -> throw values.invalid(ConfigKey.OUTBOUND_POLICY, "vouched (connect only to addresses vouched for) "
                    + "or any (to whatever a chain names: a trusted network only)");
        };
        maxPartialFrameBytes = values.bytes(ConfigKey.MAX_PARTIAL_FRAME_BYTES, 1, Long.MAX_VALUE);
        maxQueuedWriteBytes = values.bytes(ConfigKey.MAX_QUEUED_WRITE_BYTES, 1, Long.MAX_VALUE);
        maxTotalQueuedWriteBytes = values.bytes(ConfigKey.MAX_TOTAL_QUEUED_WRITE_BYTES, 1, Long.MAX_VALUE);
        maxBadFramesPerConnection = values.integer(ConfigKey.MAX_BAD_FRAMES_PER_CONNECTION, 1, Integer.MAX_VALUE);
        badFrameRefillPerMinute = values.integer(ConfigKey.BAD_FRAME_REFILL_PER_MINUTE, 0, Integer.MAX_VALUE);
        maxValueDepth = values.integer(ConfigKey.MAX_VALUE_DEPTH, 1, Integer.MAX_VALUE);
        functionCacheSize = values.integer(ConfigKey.FUNCTION_CACHE_SIZE, 1, Integer.MAX_VALUE);
        maxFunctionSourceChars = values.integer(ConfigKey.MAX_FUNCTION_SOURCE_CHARS, 1, Integer.MAX_VALUE);
        maxQueuedCompiles = values.integer(ConfigKey.MAX_QUEUED_COMPILES, 1, Integer.MAX_VALUE);
        try {
            functionIsolation = FunctionIsolation.parse(values.required(ConfigKey.FUNCTIONS_JAVA_ISOLATION,
                    "in-process, process or by-trust"));
        } catch (IllegalArgumentException e) {
            throw values.invalid(ConfigKey.FUNCTIONS_JAVA_ISOLATION, "in-process, process or by-trust");
        }
        functionRunners = values.integer(ConfigKey.FUNCTIONS_JAVA_RUNNERS, 1, 1024);
        spareFunctionRunners = values.integer(ConfigKey.FUNCTIONS_JAVA_SPARE_RUNNERS, 0, 1024);
        functionRunnerQueue = values.integer(ConfigKey.FUNCTIONS_JAVA_RUNNER_QUEUE, 0, Integer.MAX_VALUE);
        functionRunnerHeapMegabytes = (int) (values.bytes(ConfigKey.FUNCTIONS_JAVA_RUNNER_HEAP, 16L << 20, 64L << 30) >> 20);
        String precompile = values.text(ConfigKey.FUNCTIONS_PRECOMPILE_DIRECTORY);
        knownFunctions = precompile == null ? List.of() : KnownFunctionFiles.read(values, Path.of(precompile));
        maxPrecompiledFunctions = values.integer(ConfigKey.FUNCTIONS_PRECOMPILE_MAX_FUNCTIONS, 1, Integer.MAX_VALUE);
        precompileBudget = values.duration(ConfigKey.FUNCTIONS_PRECOMPILE_BUDGET, false);
        // the 256 KiB of room every stream starts with: a window or a budget below it could take no stream in
        long initialWindow = 256L << 10;
        streamBufferBytes = values.text(ConfigKey.STREAMS_BUFFER_BYTES) == null ? null
                : values.bytes(ConfigKey.STREAMS_BUFFER_BYTES, initialWindow, Long.MAX_VALUE);
        streamBufferShare = values.fraction(ConfigKey.STREAMS_BUFFER_SHARE);
        streamWindowBytes = (int) values.bytes(ConfigKey.STREAMS_WINDOW_BYTES, initialWindow, Integer.MAX_VALUE);
        streamChunkBytes = (int) values.bytes(ConfigKey.STREAMS_CHUNK_BYTES, 1, Integer.MAX_VALUE);
        maxStreamsPerConnection = values.integer(ConfigKey.STREAMS_MAX_PER_CONNECTION, 1, Integer.MAX_VALUE);
        streamIdleTimeout = values.duration(ConfigKey.STREAMS_IDLE_TIMEOUT, false);
        legacyEndpoints = LegacyEndpoints.parse(values);
        connectTimeout = values.duration(ConfigKey.CONNECT_TIMEOUT, false);
        handshakeTimeout = values.duration(ConfigKey.HANDSHAKE_TIMEOUT, false);
        idleTimeout = values.duration(ConfigKey.IDLE_TIMEOUT, true);
        frameTimeout = values.duration(ConfigKey.FRAME_TIMEOUT, false);
        replyWriteTimeout = values.duration(ConfigKey.REPLY_WRITE_TIMEOUT, false);
        deadlineNetworkAllowance = values.duration(ConfigKey.DEADLINE_NETWORK_ALLOWANCE, true);
    }

    private static String defaultAdvertisedHost(InetAddress bind) {
        if (!bind.isAnyLocalAddress()) {
            return bind.getHostAddress();
        }
        try {
            return InetAddress.getLocalHost().getHostName();
        } catch (UnknownHostException e) {
            return "localhost";
        }
    }

    private static @Nullable NodeTls tls(ConfigValues values) {
        List<ConfigKey> keys = List.of(ConfigKey.TLS_CERTIFICATE, ConfigKey.TLS_PRIVATE_KEY, ConfigKey.TLS_TRUSTED_CERTIFICATES);
        if (keys.stream().allMatch(k -> values.text(k) == null)) {
            return null;
        }
        Path[] files = new Path[3];
        for (int i = 0; i < 3; i++) {
            files[i] = Path.of(values.required(keys.get(i), "a PEM file, since another rpcc.tls key is set (TLS needs all three)"));
        }
        for (int i = 0; i < 3; i++) {
            ConfigKey key = keys.get(i);
            if (!Files.isReadable(files[i])) {
                throw values.invalid(key, "a readable PEM file (" + files[i].toAbsolutePath() + " cannot be read)");
            }
        }
        try {
            return NodeTls.fromPem(files[0], files[1], files[2]);
        } catch (IllegalArgumentException e) {
            throw values.invalid(ConfigKey.TLS_CERTIFICATE, "PEM files rpcc can use: " + e.getMessage());
        }
    }

    /** {@code rpcc.tracing.otlp.endpoint}: an http or https URL with a host, or {@code null} (no tracing). */
    private static @Nullable URI otlpEndpoint(ConfigValues values) {
        String text = values.text(ConfigKey.TRACING_OTLP_ENDPOINT);
        if (text == null || text.isBlank()) {
            return null;
        }
        String expected = "the http:// or https:// URL of an OTLP/HTTP traces endpoint, such as"
                + " http://otel-collector:4318/v1/traces (or no value: no traces)";
        try {
            URI uri = new URI(text.trim());
            String scheme = uri.getScheme() == null ? "" : uri.getScheme().toLowerCase(Locale.ROOT);
            if (!(scheme.equals("http") || scheme.equals("https")) || uri.getHost() == null) {
                throw values.invalid(ConfigKey.TRACING_OTLP_ENDPOINT, expected);
            }
            return uri;
        } catch (URISyntaxException e) {
            throw values.invalid(ConfigKey.TRACING_OTLP_ENDPOINT, expected);
        }
    }

    /** {@code rpcc.tracing.otlp.headers}: comma-separated {@code name=value} pairs sent with every export. */
    private static Map<String, String> otlpHeaders(ConfigValues values) {
        String text = values.text(ConfigKey.TRACING_OTLP_HEADERS);
        Map<String, String> headers = new LinkedHashMap<>();
        if (text == null) {
            return headers;
        }
        for (String entry : text.split(",")) {
            String e = entry.trim();
            if (e.isEmpty()) {
                continue;
            }
            int equals = e.indexOf('=');
            if (equals <= 0) {
                // not values.invalid: the value is not repeated, it may hold a credential
                ConfigKey key = ConfigKey.TRACING_OTLP_HEADERS;
                throw new ConfigException(key.key(), key.key() + " (value not shown: it may hold credentials): entry "
                        + (headers.size() + 1) + " has no name=; expected comma-separated name=value HTTP headers, such as"
                        + " authorization=Bearer abc,x-tenant=shop");
            }
            headers.put(e.substring(0, equals).trim(), e.substring(equals + 1).trim());
        }
        return headers;
    }

    /** {@code rpcc.tracing.sampling.probability}: from 0 to 1. */
    private static double samplingProbability(ConfigValues values) {
        String text = values.required(ConfigKey.TRACING_SAMPLING_PROBABILITY, "a number from 0 to 1");
        try {
            double p = Double.parseDouble(text.trim());
            if (p >= 0 && p <= 1) {
                return p;
            }
        } catch (NumberFormatException e) {
            // below
        }
        throw values.invalid(ConfigKey.TRACING_SAMPLING_PROBABILITY, "a number from 0 to 1: the share of the chains"
                + " started without a trace context that this node traces, such as 0.1 (1: all, 0: none)");
    }

    /**
     * {@code rpcc.policy.allow}: comma-separated {@code service:originator} entries; a service listed
     * may be called only by the originators listed with it.
     */
    private static Map<String, Set<String>> allowList(ConfigValues values) {
        String text = values.text(ConfigKey.POLICY_ALLOW);
        Map<String, Set<String>> allowed = new LinkedHashMap<>();
        if (text == null) {
            return allowed;
        }
        for (String entry : text.split(",")) {
            String e = entry.trim();
            int colon = e.indexOf(':');
            if (colon <= 0 || colon == e.length() - 1) {
                throw values.invalid(ConfigKey.POLICY_ALLOW, "comma-separated service:originator entries, such as"
                        + " charge:shop, charge:billing-admin (\"" + e + "\" is not one)");
            }
            allowed.computeIfAbsent(e.substring(0, colon).trim(), k -> new LinkedHashSet<>())
                    .add(e.substring(colon + 1).trim());
        }
        return allowed;
    }

    /** The node's chain policy ({@code rpcc.policy.*}). */
    public AllowListPolicy policy() {
        return policy;
    }

    /** Applies the node's settings (everything but its services and roles) to {@code server}. */
    public RpccServer.Builder applyTo(RpccServer.Builder server) {
        server.listen(bind, port).advertisedHost(advertisedHost).resolver(peers)
                .maxFrameSize(maxFrameSize).maxHops(maxHops)
                .maxInboundConnections(maxInboundConnections).maxInboundConnectionsPerAddress(maxInboundConnectionsPerAddress)
                .maxOutboundConnections(maxOutboundConnections).maxDialsInProgress(maxDialsInProgress)
                .outboundPolicy(outboundPolicy).transport(transport)
                .maxPartialFrameBytes(maxPartialFrameBytes).maxQueuedWriteBytes(maxQueuedWriteBytes)
                .maxTotalQueuedWriteBytes(maxTotalQueuedWriteBytes).maxBadFramesPerConnection(maxBadFramesPerConnection)
                .badFrameRefillPerMinute(badFrameRefillPerMinute)
                .maxNodeNameLength(maxNodeNameLength).maxValueDepth(maxValueDepth)
                .functionCacheSize(functionCacheSize).maxFunctionSourceChars(maxFunctionSourceChars)
                .maxQueuedCompiles(maxQueuedCompiles)
                .precompileFunctions(knownFunctions).precompileBudget(maxPrecompiledFunctions, precompileBudget)
                .functionIsolation(functionIsolation)
                .functionRunners(functionRunners, spareFunctionRunners, functionRunnerQueue, functionRunnerHeapMegabytes)
                .connectTimeout(connectTimeout).handshakeTimeout(handshakeTimeout).idleTimeout(idleTimeout)
                .frameTimeout(frameTimeout).replyWriteTimeout(replyWriteTimeout)
                .deadlineNetworkAllowance(deadlineNetworkAllowance)
                .streamWindowBytes(streamWindowBytes).streamChunkBytes(streamChunkBytes)
                .maxStreamsPerConnection(maxStreamsPerConnection).streamIdleTimeout(streamIdleTimeout)
                .streamBufferShare(streamBufferShare);
        if (streamBufferBytes != null) {
            server.streamBufferBytes(streamBufferBytes);
        }
        if (sandbox != null) {
            server.sandbox(sandbox);
        } else {
            server.withoutSandbox();
        }
        if (tls != null) {
            server.tls(tls);
        }
        server.policy(policy);
        if (proxyEnabled) {
            server.actAsChainingProxy();
        }
        if (proxyNode != null) {
            server.chainingProxy(proxyNode);
        }
        return server;
    }

    /** {@code rpcc.name}. */
    public String name() {
        return name;
    }

    /** {@code rpcc.bind}. */
    public String bind() {
        return bind;
    }

    /** {@code rpcc.port} (0: any free port). */
    public int port() {
        return port;
    }

    /** {@code rpcc.advertised-host}, or its default. */
    public String advertisedHost() {
        return advertisedHost;
    }

    /** {@code rpcc.peers}, as the node's name resolver. */
    public PeerResolver peers() {
        return peers;
    }

    /** The chaining functions of {@code rpcc.functions.precompile.directory} (none if it is not set). */
    public List<ChainingFunctionSource> knownFunctions() {
        return knownFunctions;
    }

    /** {@code rpcc.repository.directory} if {@code rpcc.repository.enabled}, else {@code null}. */
    public @Nullable Path repositoryDirectory() {
        return repositoryDirectory;
    }

    /** {@code rpcc.services.path}. */
    public Path servicesPath() {
        return servicesPath;
    }

    /** Whether {@code rpcc.services.path} was set (then it must exist; the default may be missing). */
    public boolean servicesPathRequired() {
        return servicesPathRequired;
    }

    /** {@code rpcc.services.classes}. */
    public List<String> servicesClasses() {
        return servicesClasses;
    }

    /** {@code rpcc.health.port} (0: no health endpoint). */
    public int healthPort() {
        return healthPort;
    }

    /** {@code rpcc.metrics.enabled}: whether the health endpoint serves {@code /metrics}. */
    public boolean metricsEnabled() {
        return metricsEnabled;
    }

    /** {@code rpcc.tracing.otlp.endpoint}, or {@code null}: the node exports no traces. */
    public @Nullable URI otlpEndpoint() {
        return otlpEndpoint;
    }

    /** {@code rpcc.tracing.otlp.headers}, in order. */
    public Map<String, String> otlpHeaders() {
        return otlpHeaders;
    }

    /** {@code rpcc.tracing.sampling.probability}. */
    public double samplingProbability() {
        return samplingProbability;
    }

    /** {@code rpcc.shutdown.grace}. */
    public Duration shutdownGrace() {
        return shutdownGrace;
    }

    /** {@code rpcc.log.level}, lower case. */
    public String logLevel() {
        return logLevel;
    }

    /** The sandbox limits, or {@code null} if {@code rpcc.sandbox.enabled} is false. */
    public @Nullable SandboxLimits sandbox() {
        return sandbox;
    }

    /** {@code rpcc.limits.max-frame-size}. */
    public int maxFrameSize() {
        return maxFrameSize;
    }

    /** {@code rpcc.transport}. */
    public SocketTransport transport() {
        return transport;
    }

    /** {@code rpcc.limits.outbound-policy}. */
    public OutboundPolicy outboundPolicy() {
        return outboundPolicy;
    }

    /** {@code rpcc.limits.max-outbound-connections}. */
    public int maxOutboundConnections() {
        return maxOutboundConnections;
    }

    /** {@code rpcc.limits.max-dials-in-progress}. */
    public int maxDialsInProgress() {
        return maxDialsInProgress;
    }

    /** {@code rpcc.streams.buffer-bytes}, or {@code null}: the builder's default (64 MiB, or a quarter of the heap if less). */
    public @Nullable Long streamBufferBytes() {
        return streamBufferBytes;
    }

    /** {@code rpcc.streams.buffer-share}: what the streams from one remote address may hold of the buffer. */
    public double streamBufferShare() {
        return streamBufferShare;
    }

    /** {@code rpcc.streams.window-bytes}. */
    public int streamWindowBytes() {
        return streamWindowBytes;
    }

    /** {@code rpcc.legacy.http.<function>}: the HTTP/JSON endpoints the node wraps as service functions. */
    public LegacyEndpoints legacyEndpoints() {
        return legacyEndpoints;
    }

    /** {@code rpcc.timeouts.idle}. */
    public Duration idleTimeout() {
        return idleTimeout;
    }
}
