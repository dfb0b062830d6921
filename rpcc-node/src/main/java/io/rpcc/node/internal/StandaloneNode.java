package io.rpcc.node.internal;

import io.rpcc.repository.FileSystemChainingFunctionRepository;
import io.rpcc.server.RpccServer;
import java.io.IOException;
import java.io.PrintStream;
import java.net.InetSocketAddress;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.atomic.AtomicBoolean;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A running standalone node: its metrics and traces, its health endpoint (with {@code /metrics}), its
 * service jars, the legacy HTTP endpoints it wraps ({@code rpcc.legacy.http.*}) and its server. {@link #start} brings them up in that order (so {@code /ready} answers 503
 * while the node starts), waits for its compilers and spare function runners to be warm (at most
 * {@link #WARM_UP_WAIT}) and prints the ready line; {@link #stop} drains the server, exports the last
 * spans and prints the stopped line.
 */
public final class StandaloneNode {
    private static final Logger log = LoggerFactory.getLogger(StandaloneNode.class);
    /** The longest a starting node waits for its compilers and spare function runners to be warm before it is ready. */
    static final Duration WARM_UP_WAIT = Duration.ofSeconds(30);

    private final NodeConfig config;
    private final PrintStream out;
    private final @Nullable HealthEndpoint health;
    private final ServiceJars services;
    private final RpccServer server;
    private final NodeObservability observability;
    private final AtomicBoolean stopped = new AtomicBoolean();

    private StandaloneNode(NodeConfig config, PrintStream out, @Nullable HealthEndpoint health, ServiceJars services,
                           RpccServer server, NodeObservability observability) {
        this.config = config;
        this.out = out;
        this.health = health;
        this.services = services;
        this.server = server;
        this.observability = observability;
    }

    /**
     * Waits (at most {@link #WARM_UP_WAIT}) for the node's chaining-function compilers and spare
     * function runners to be warm before it says it is ready, so that traffic sent to it once {@code /ready}
     * answers 200 finds it serving at its normal latency. Chains are served meanwhile.
     */
    private static void awaitWarmUp(String name, RpccServer server) {
        long start = System.nanoTime();
        try {
            if (server.awaitWarmUp(WARM_UP_WAIT)) {
                log.info("rpcc node '{}' warmed its chaining-function compilers and function runners in {} ms", name,
                        (System.nanoTime() - start) / 1_000_000);
            } else {
                log.warn("rpcc node '{}': its chaining-function compilers or function runners were not warm within {} s;"
                        + " ready anyway (the first chains pay for the rest)", name, WARM_UP_WAIT.toSeconds());
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /**
     * Starts the node and prints {@code rpcc node '<name>' ready at <advertised-host>:<port>} on {@code out}.
     *
     * @throws ConfigException if a service class named in the configuration cannot be used
     * @throws IOException if the health endpoint cannot listen
     */
    public static StandaloneNode start(ConfigValues values, NodeConfig config, PrintStream out) throws IOException {
        NodeObservability observability = NodeObservability.create(config);
        HealthEndpoint health = null;
        ServiceJars services = null;
        try {
            health = config.healthPort() == 0 ? null
                    : HealthEndpoint.start(config.bind(), config.healthPort(), observability.metricsEndpoint());
            services = ServiceJars.open(config);
            Thread.currentThread().setContextClassLoader(services.classLoader()); // threads the node starts inherit it
            // traces and metrics first: their decorators enclose those of the service modules
            RpccServer.Builder builder = observability.applyTo(config.applyTo(RpccServer.builder(config.name())));
            List<String> registered = new java.util.ArrayList<>(services.registerOn(builder, config, values));
            registered.addAll(config.legacyEndpoints().registerOn(builder, services.classLoader()));
            Path repository = config.repositoryDirectory();
            if (repository != null) {
                builder.repository(new FileSystemChainingFunctionRepository(repository));
            }
            RpccServer server = builder.build();
            observability.bind(server);
            server.start();
            int port = server.address().getPort();
            config.peers().registerSelf(config.name(), new InetSocketAddress(config.advertisedHost(), port));
            log.info("rpcc node '{}' listens on {} (transport {}); services from {} ({}); service modules, classes and legacy endpoints: {}; "
                    + "repository: {}; peers: {}", config.name(), server.address(),
                    server.transport().name().toLowerCase(Locale.ROOT),
                    config.servicesPath().toAbsolutePath(), services.jars().isEmpty() ? "no jars" : services.jars(),
                    registered, repository == null ? "no" : repository.toAbsolutePath(), config.peers());
            log.info("rpcc node '{}': metrics {}; traces {}", config.name(), health == null
                    || observability.metricsEndpoint() == null ? "off" : "at http://" + config.bind() + ":" + health.port()
                    + "/metrics",
                    config.otlpEndpoint() == null ? "off" : "to " + config.otlpEndpoint() + " (OTLP, sampling probability "
                            + config.samplingProbability() + ")");
            StandaloneNode node = new StandaloneNode(config, out, health, services, server, observability);
            awaitWarmUp(config.name(), server);
            if (health != null) {
                health.ready(true);
            }
            out.println("rpcc node '" + config.name() + "' ready at " + config.advertisedHost() + ":" + port);
            out.flush();
            return node;
        } catch (IOException | RuntimeException | Error e) {
            if (health != null) {
                health.close();
            }
            observability.close();
            if (services != null) {
                services.close();
            }
            throw e;
        }
    }

    /** The server (for tests in the same JVM). */
    public RpccServer server() {
        return server;
    }

    /**
     * Drains the node (new hops are refused, running ones get {@code rpcc.shutdown.grace}), exports the
     * spans not yet exported, stops the health endpoint and prints {@code rpcc node '<name>' stopped}.
     * Idempotent.
     */
    public void stop() {
        if (!stopped.compareAndSet(false, true)) {
            return;
        }
        if (health != null) {
            health.ready(false);
        }
        log.info("rpcc node '{}' shutting down (grace {})", config.name(), config.shutdownGrace());
        server.shutdown(config.shutdownGrace());
        observability.close();
        if (health != null) {
            health.close();
        }
        try {
            services.close();
        } catch (IOException e) {
            log.warn("closing the service jars failed", e);
        }
        out.println("rpcc node '" + config.name() + "' stopped");
        out.flush();
    }
}
