package io.rpcc.spring.boot.autoconfigure;

import io.rpcc.client.ChainDecorator;
import io.rpcc.client.ClientInterceptor;
import io.rpcc.client.RpccClient;
import io.rpcc.core.ChainingFunctionSource;
import io.rpcc.core.NameResolver;
import io.rpcc.core.runtime.NodeBuilder;
import io.rpcc.core.RpccType;
import io.rpcc.core.StaticNameResolver;
import io.rpcc.core.TypeRegistry;
import io.rpcc.observability.RpccMetrics;
import io.rpcc.observability.RpccTracing;
import io.rpcc.repository.FileSystemChainingFunctionRepository;
import io.rpcc.repository.InMemoryChainingFunctionRepository;
import io.rpcc.server.RpccServer;
import io.rpcc.server.ChainPolicy;
import io.rpcc.server.HopDecorator;
import io.rpcc.server.ServerInterceptor;
import io.rpcc.spring.boot.RpccClientCustomizer;
import io.rpcc.spring.boot.RpccNodeLifecycle;
import io.rpcc.spring.boot.RpccProperties;
import io.rpcc.spring.boot.RpccServerCustomizer;
import io.rpcc.spring.boot.RpccService;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CountDownLatch;
import java.util.function.Consumer;
import org.jspecify.annotations.Nullable;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.config.ConfigurableListableBeanFactory;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.env.Environment;
import org.springframework.core.io.ResourceLoader;
import org.springframework.util.ClassUtils;

/**
 * Auto-configures rpcc in a Spring Boot application from the {@code rpcc.*} properties
 * ({@link RpccProperties}): a {@link NameResolver} of {@code rpcc.peers}, a {@link TypeRegistry} of
 * the {@link RpccType} classes in {@code rpcc.types-packages} (default: the application's packages) and
 * of {@code rpcc.types}, an {@link RpccServer} hosting the {@link RpccService} beans' service methods
 * and, with rpcc-legacy, the application's {@code LegacyHttp.Builder} and {@code LegacyGrpc.Builder} beans
 * (unless {@code rpcc.server.enabled=false}) and an {@link RpccClient} (unless
 * {@code rpcc.client.enabled=false}), each started and drained with the context by an
 * {@link RpccNodeLifecycle}. Each bean backs off when the application defines its own. The server runs the
 * application's {@link ServerInterceptor} and {@link HopDecorator} beans, in bean order, and its
 * {@link ChainPolicy} bean, if it has exactly one; the client its {@link ClientInterceptor} and
 * {@link ChainDecorator} beans. An {@link RpccTracing} bean ({@link RpccTracingAutoConfiguration}) is
 * applied to both builders first, so that its spans enclose what the application's decorators do, then an
 * {@link RpccMetrics} bean ({@link RpccMetricsAutoConfiguration}), which is also bound to the nodes built.
 */
@AutoConfiguration
@EnableConfigurationProperties(RpccProperties.class)
public class RpccAutoConfiguration {
    private static final Duration DEFAULT_GRACE = Duration.ofSeconds(30);
    /** Whether the application has rpcc-legacy (an optional dependency): only then is {@link LegacyServices} loaded. */
    private static final boolean LEGACY_PRESENT = ClassUtils.isPresent("io.rpcc.legacy.LegacyHttp",
            RpccAutoConfiguration.class.getClassLoader());

    /** The {@link RpccType} classes of {@code rpcc.types-packages} (default: the application's packages). */
    @Bean
    ScannedRpccTypes rpccScannedTypes(RpccProperties properties, Environment environment,
                                      ResourceLoader resourceLoader, ConfigurableListableBeanFactory beanFactory) {
        List<String> packages = RpccTypeScan.packages(properties.getTypesPackages(), beanFactory);
        return new ScannedRpccTypes(packages, RpccTypeScan.scan(packages, environment, resourceLoader,
                beanFactory.getBeanClassLoader()));
    }

    /** The {@link RpccType} classes of {@code rpcc.types-packages} and the classes of {@code rpcc.types}. */
    @Bean
    @ConditionalOnMissingBean
    TypeRegistry rpccTypeRegistry(RpccProperties properties, ScannedRpccTypes scanned) {
        return RpccTypeScan.merge(null, scanned.types(), properties.getTypes());
    }

    /**
     * The types the nodes register: those of the {@link TypeRegistry} bean (the application's own, if it
     * has one), and the scanned and listed ones it lacks.
     */
    private static TypeRegistry nodeTypes(TypeRegistry types, ScannedRpccTypes scanned, RpccProperties properties) {
        return RpccTypeScan.merge(types, scanned.types(), properties.getTypes());
    }

    /** The packages scanned for {@link RpccType} classes, and the classes found. */
    record ScannedRpccTypes(List<String> packages, List<Class<?>> types) {
    }

    /** The nodes of {@code rpcc.peers}; the application's server adds itself once it listens. */
    @Bean
    @ConditionalOnMissingBean
    NameResolver rpccNameResolver(RpccProperties properties) {
        StaticNameResolver names = new StaticNameResolver();
        properties.getPeers().forEach((name, address) -> names.register(name, peerAddress(name, address)));
        return names;
    }

    private static InetSocketAddress peerAddress(String name, String address) {
        int colon = address.lastIndexOf(':');
        int port = -1;
        if (colon > 0) {
            try {
                port = Integer.parseInt(address.substring(colon + 1).trim());
            } catch (NumberFormatException e) {
                port = -1;
            }
        }
        if (port < 1 || port > 65535) {
            throw new IllegalArgumentException("rpcc.peers." + name + "=" + address + ": expected host:port"
                    + " with a port from 1 to 65535, e.g. rpcc.peers." + name + "=10.0.0.7:7001");
        }
        String host = address.substring(0, colon).trim();
        if (host.startsWith("[") && host.endsWith("]")) { // [::1]:7001
            host = host.substring(1, host.length() - 1);
        }
        return new InetSocketAddress(host, port);
    }

    private static Duration grace(RpccProperties properties, Environment environment) {
        if (properties.getShutdownGrace() != null) {
            return properties.getShutdownGrace();
        }
        return Binder.get(environment).bind("spring.lifecycle.timeout-per-shutdown-phase", Duration.class)
                .orElse(DEFAULT_GRACE);
    }

    private static <T> void ifSet(@Nullable T value, Consumer<T> setter) {
        if (value != null) {
            setter.accept(value);
        }
    }

    private static void applyNode(NodeBuilder<?> builder, RpccProperties.Node node, NameResolver names,
                                  TypeRegistry types, ConfigurableListableBeanFactory beanFactory) {
        builder.listen(node.getBind(), node.getPort()).advertisedHost(node.getAdvertisedHost()).resolver(names)
                .types(types);
        // chaining functions compile against the application's classes (a Boot jar's BOOT-INF/classes and
        // BOOT-INF/lib, DevTools' restart loader), whichever thread builds the node
        ifSet(beanFactory.getBeanClassLoader(), builder::functionClassLoader);
        ifSet(node.getMaxFrameSize(), size -> builder.maxFrameSize(Math.toIntExact(size.toBytes())));
        ifSet(node.getConnectTimeout(), builder::connectTimeout);
        ifSet(node.getMaxHops(), builder::maxHops);
        ifSet(node.getHandshakeTimeout(), builder::handshakeTimeout);
        ifSet(node.getIdleTimeout(), builder::idleTimeout);
        ifSet(node.getMaxInboundConnections(), builder::maxInboundConnections);
        ifSet(node.getMaxInboundConnectionsPerAddress(), builder::maxInboundConnectionsPerAddress);
        ifSet(node.getMaxOutboundConnections(), builder::maxOutboundConnections);
        ifSet(node.getMaxDialsInProgress(), builder::maxDialsInProgress);
        ifSet(node.getOutboundPolicy(), builder::outboundPolicy);
        ifSet(node.getTransport(), builder::transport);
        applyStreams(builder, node, node instanceof RpccProperties.Server ? "rpcc.server." : "rpcc.client.");
    }

    /** The node's data-stream limits ({@code rpcc.{server,client}.stream-*}, {@code .max-streams-per-connection}). */
    private static void applyStreams(NodeBuilder<?> builder, RpccProperties.Node node, String prefix) {
        try {
            ifSet(node.getStreamBufferBytes(), size -> builder.streamBufferBytes(size.toBytes()));
            ifSet(node.getStreamBufferShare(), builder::streamBufferShare);
            ifSet(node.getStreamWindowBytes(), size -> builder.streamWindowBytes(Math.toIntExact(size.toBytes())));
            ifSet(node.getStreamChunkBytes(), size -> builder.streamChunkBytes(Math.toIntExact(size.toBytes())));
            ifSet(node.getMaxStreamsPerConnection(), builder::maxStreamsPerConnection);
            ifSet(node.getStreamIdleTimeout(), builder::streamIdleTimeout);
        } catch (IllegalArgumentException | ArithmeticException e) {
            throw new IllegalStateException(prefix + "stream-buffer-bytes, .stream-buffer-share, .stream-window-bytes,"
                    + " .stream-chunk-bytes, .max-streams-per-connection or .stream-idle-timeout is out of range ("
                    + e.getMessage() + "): set a buffer and a window of at least 256KB (a window under 2GB), a share"
                    + " over 0 and at most 1, a positive chunk size, count and timeout", e);
        }
    }

    /** Where the server runs Java chaining functions, and its runner pool's sizes (rpcc.server.functions.java.*). */
    private static void applyJavaFunctions(RpccServer.Builder builder, RpccProperties.JavaFunctions java) {
        builder.functionIsolation(java.getIsolation());
        try {
            builder.functionRunners(java.getRunners(), java.getSpareRunners(), java.getRunnerQueue(),
                    Math.toIntExact(java.getRunnerHeap().toMegabytes()));
        } catch (IllegalArgumentException | ArithmeticException e) {
            throw new IllegalStateException("rpcc.server.functions.java.runners, .spare-runners, .runner-queue or"
                    + " .runner-heap is out of range (" + e.getMessage() + "): set at least 1 runner, no negative"
                    + " spare runners or queue, and a runner heap of at least 16MB");
        }
    }

    /**
     * The chaining functions the server knows at start (rpcc.server.functions.precompile.*): the
     * application's {@link ChainingFunctionSource} beans, compiled in the background after it started.
     */
    private static void applyPrecompile(RpccServer.Builder builder, RpccProperties.Precompile precompile,
                                        ConfigurableListableBeanFactory beanFactory) {
        if (precompile.isBeans()) {
            builder.precompileFunctions(beanFactory.getBeanProvider(ChainingFunctionSource.class).orderedStream().toList());
        }
        if (precompile.getMaxFunctions() != null || precompile.getBudget() != null) {
            try {
                builder.precompileBudget(precompile.getMaxFunctions() != null ? precompile.getMaxFunctions()
                        : NodeBuilder.DEFAULT_MAX_PRECOMPILED_FUNCTIONS, precompile.getBudget() != null
                        ? precompile.getBudget() : NodeBuilder.DEFAULT_PRECOMPILE_BUDGET);
            } catch (IllegalArgumentException e) {
                throw new IllegalStateException("rpcc.server.functions.precompile.max-functions or .budget is out of"
                        + " range (" + e.getMessage() + "): set at least 1 function and a positive budget");
            }
        }
    }

    /** The application's server, unless {@code rpcc.server.enabled=false}. */
    @Configuration(proxyBeanMethods = false)
    @ConditionalOnBooleanProperty(name = "rpcc.server.enabled", matchIfMissing = true)
    static class ServerConfiguration {

        @Bean
        @ConditionalOnMissingBean
        RpccServer rpccServer(RpccProperties properties, Environment environment, NameResolver names,
                              TypeRegistry types, ScannedRpccTypes scanned, ObjectProvider<ServerInterceptor> interceptors,
                              ObjectProvider<HopDecorator> hopDecorators, ObjectProvider<RpccServerCustomizer> customizers,
                              ObjectProvider<RpccTracing> tracing, ObjectProvider<RpccMetrics> metrics,
                              ConfigurableListableBeanFactory beanFactory) {
            RpccProperties.Server settings = properties.getServer();
            String name = settings.getName() != null ? settings.getName()
                    : environment.getProperty("spring.application.name");
            if (name == null || name.isBlank()) {
                throw new IllegalStateException("the rpcc server has no node name: set rpcc.server.name (or"
                        + " spring.application.name), or turn the server off with rpcc.server.enabled=false");
            }
            RpccServer.Builder builder = RpccServer.builder(name);
            applyNode(builder, settings, names, nodeTypes(types, scanned, properties), beanFactory);
            ifSet(settings.getReplyWriteTimeout(), builder::replyWriteTimeout);
            ifSet(settings.getFunctionCacheSize(), builder::functionCacheSize);
            ifSet(settings.getMaxQueuedCompiles(), builder::maxQueuedCompiles);
            applyJavaFunctions(builder, settings.getFunctions().getJava());
            applyPrecompile(builder, settings.getFunctions().getPrecompile(), beanFactory);
            RpccProperties.Repository repository = settings.getRepository();
            if (repository.isEnabled()) {
                builder.repository(repository.getDirectory() != null
                        ? new FileSystemChainingFunctionRepository(repository.getDirectory())
                        : new InMemoryChainingFunctionRepository());
            }
            ServiceMethodRegistrar registrar = new ServiceMethodRegistrar();
            for (String beanName : ServiceMethodRegistrar.serviceBeanNames(beanFactory)) {
                registrar.register(builder, beanName, beanFactory.getBean(beanName));
            }
            if (LEGACY_PRESENT) { // rpcc-legacy's wrappers, when the application has it
                LegacyServices.register(builder, beanFactory);
            }
            // tracing first: its decorators outermost (its span encloses the others' work and sees the outcome they
            // lead to), its interceptors before the application's; then the metrics, inside the span
            RpccTracing hopTracing = tracing.getIfUnique();
            if (hopTracing != null) {
                hopTracing.applyTo(builder);
            }
            RpccMetrics hopMetrics = metrics.getIfUnique();
            if (hopMetrics != null) {
                hopMetrics.applyTo(builder);
            }
            interceptors.orderedStream().forEach(builder::interceptor);
            hopDecorators.orderedStream().forEach(builder::decorator);
            beanFactory.getBeanProvider(ChainPolicy.class).ifUnique(builder::policy); // the application's, if it has one
            customizers.orderedStream().forEach(customizer -> customizer.customize(builder));
            RpccServer server = builder.build();
            if (hopMetrics != null) {
                hopMetrics.bind(server);
            }
            return server;
        }

        /** Starts the server with the context (and adds its address to the resolver), drains it on close. */
        @Bean
        RpccNodeLifecycle rpccServerLifecycle(RpccServer server, NameResolver names, RpccProperties properties,
                                              Environment environment) {
            String advertisedHost = properties.getServer().getAdvertisedHost();
            boolean isPeer = properties.getPeers().containsKey(server.name());
            // rpcc's threads are daemons: without a web server, nothing else would keep a java -jar running
            CountDownLatch stopped = new CountDownLatch(1);
            Runnable start = () -> {
                server.start();
                InetSocketAddress reachable = reachable(server.address(), advertisedHost);
                if (names instanceof StaticNameResolver staticNames && !isPeer) {
                    staticNames.register(server.name(), reachable);
                }
                if (properties.getServer().isKeepAlive()) {
                    Thread.ofPlatform().daemon(false).name("rpcc-keep-alive-" + server.name()).start(() -> {
                        try {
                            stopped.await();
                        } catch (InterruptedException e) {
                            Thread.currentThread().interrupt();
                        }
                    });
                }
                NodeLog.serverStarted(server, reachable);
            };
            return new RpccNodeLifecycle("server " + server.name(), start, period -> {
                try {
                    NodeLog.stopping("server", server.name(), period, server::shutdown);
                } finally {
                    stopped.countDown();
                }
            }, grace(properties, environment), RpccNodeLifecycle.SERVER_PHASE);
        }

        private static InetSocketAddress reachable(InetSocketAddress bound, @Nullable String advertisedHost) {
            if (advertisedHost != null) {
                return new InetSocketAddress(advertisedHost, bound.getPort());
            }
            if (bound.getAddress() != null && bound.getAddress().isAnyLocalAddress()) {
                return new InetSocketAddress(InetAddress.getLoopbackAddress(), bound.getPort());
            }
            return bound;
        }
    }

    /**
     * The auto-configured client's node name, chosen once per context: {@code rpcc.client.name}, else
     * {@code spring.application.name} and a random suffix, else {@code client-} and a random suffix (unique
     * per instance: servers key chains by originator name and number, and send results to the name).
     * {@code metricsTag} is what its meters' {@code node} tag says instead of a generated name: the
     * application's name, stable across restarts ({@code null} if the name was set, or there is no
     * application name).
     */
    record ClientName(String name, @Nullable String metricsTag) {
        static ClientName of(RpccProperties properties, Environment environment) {
            String set = properties.getClient().getName();
            if (set != null) {
                return new ClientName(set, null);
            }
            String application = ClientConfiguration.applicationName(environment);
            String suffix = UUID.randomUUID().toString().substring(0, 8);
            return application != null ? new ClientName(application + "-" + suffix, application)
                    : new ClientName("client-" + suffix, null);
        }
    }

    /** The auto-configured client's node name ({@link ClientName}). */
    @Bean
    ClientName rpccClientName(RpccProperties properties, Environment environment) {
        return ClientName.of(properties, environment);
    }

    /** The application's client, unless {@code rpcc.client.enabled=false}. */
    @Configuration(proxyBeanMethods = false)
    @ConditionalOnBooleanProperty(name = "rpcc.client.enabled", matchIfMissing = true)
    static class ClientConfiguration {

        @Bean
        @ConditionalOnMissingBean
        RpccClient rpccClient(RpccProperties properties, Environment environment, NameResolver names,
                              TypeRegistry types, ScannedRpccTypes scanned,
                              ObjectProvider<ClientInterceptor> interceptors,
                              ObjectProvider<ChainDecorator> decorators,
                              ObjectProvider<RpccTracing> tracing, ObjectProvider<RpccMetrics> metrics,
                              ObjectProvider<RpccClientCustomizer> customizers, ClientName clientName,
                              ConfigurableListableBeanFactory beanFactory) {
            RpccProperties.Client settings = properties.getClient();
            RpccClient.Builder builder = RpccClient.builder();
            builder.name(clientName.name());
            applyNode(builder, settings, names, nodeTypes(types, scanned, properties), beanFactory);
            ifSet(settings.getTimeout(), builder::timeout);
            ifSet(settings.getReplyBufferSize(), builder::replyBufferSize);
            ifSet(settings.getReplyBufferBytes(), size -> builder.replyBufferBytes(size.toBytes()));
            ifSet(settings.getRepository(), builder::repository);
            ifSet(settings.getInlineFunctionLimit(), builder::inlineFunctionLimit);
            ifSet(settings.getStateFallback(), builder::stateFallback);
            // tracing first (its decorator outermost: it sees the outcome the others lead to), then the metrics
            RpccTracing chainTracing = tracing.getIfUnique();
            if (chainTracing != null) {
                chainTracing.applyTo(builder);
            }
            RpccMetrics chainMetrics = metrics.getIfUnique();
            if (chainMetrics != null) {
                chainMetrics.applyTo(builder);
            }
            interceptors.orderedStream().forEach(builder::interceptor);
            decorators.orderedStream().forEach(builder::decorator);
            customizers.orderedStream().forEach(customizer -> customizer.customize(builder));
            RpccClient client = builder.build();
            if (chainMetrics != null) {
                chainMetrics.bind(client);
            }
            return client;
        }

        /** Starts the client with the context, drains it on close (after the server). */
        @Bean
        RpccNodeLifecycle rpccClientLifecycle(RpccClient client, RpccProperties properties, Environment environment) {
            Runnable start = () -> {
                client.start();
                NodeLog.clientStarted(client, properties.getPeers());
            };
            return new RpccNodeLifecycle("client " + client.name(), start,
                    period -> NodeLog.stopping("client", client.name(), period, client::shutdown),
                    grace(properties, environment), RpccNodeLifecycle.CLIENT_PHASE);
        }

        /** {@code spring.application.name}, trimmed, or {@code null} if it is not set. */
        static @Nullable String applicationName(Environment environment) {
            String application = environment.getProperty("spring.application.name");
            return application == null || application.isBlank() ? null : application.trim();
        }
    }
}
