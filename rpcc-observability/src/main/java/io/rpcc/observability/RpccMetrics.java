package io.rpcc.observability;

import io.micrometer.core.instrument.MeterRegistry;
import io.rpcc.client.RpccClient;
import io.rpcc.server.RpccServer;
import io.rpcc.observability.internal.ChainMeters;
import io.rpcc.observability.internal.HopMeters;
import io.rpcc.observability.internal.NodeMeters;
import java.util.Objects;

/**
 * Metrics of chains, hops and nodes in a Micrometer {@link MeterRegistry} (exported to Prometheus,
 * OpenTelemetry and others through Micrometer's registries). {@link #applyTo} adds what is measured
 * per chain and per hop; {@link #bind} adds the counters a node keeps (connections, refusals,
 * function cache, retries, failovers).
 *
 * <pre>{@code
 * RpccMetrics metrics = RpccMetrics.of(meterRegistry);
 * RpccServer server = metrics.applyTo(RpccServer.builder("inventory")).build();
 * metrics.bind(server);
 * RpccClient client = metrics.applyTo(RpccClient.builder()).build().start();
 * metrics.bind(client);
 * }</pre>
 *
 * <p>The meters, their tags and how to export them to OpenTelemetry are listed in the guide
 * {@code docs/guides/metrics-and-logs.md}.
 */
public final class RpccMetrics {
    private final MeterRegistry registry;

    private RpccMetrics(MeterRegistry registry) {
        this.registry = registry;
    }

    /** Metrics recorded in {@code registry}. */
    public static RpccMetrics of(MeterRegistry registry) {
        return new RpccMetrics(Objects.requireNonNull(registry, "registry"));
    }

    /**
     * Adds the per-hop meters' decorator to {@code builder} ({@code rpcc.hop.duration} by service
     * function, kind and outcome; {@code rpcc.hop.queue} and {@code rpcc.hop.service} by service
     * function); returns it. Its hops are decorated in the order decorators were added.
     */
    public RpccServer.Builder applyTo(RpccServer.Builder builder) {
        return builder.decorator(new HopMeters(registry));
    }

    /**
     * Adds the per-chain meters' decorator to {@code builder} ({@code rpcc.chains.started},
     * {@code rpcc.chains.completed}, {@code rpcc.chains.failed} by error code,
     * {@code rpcc.chain.duration}, and per chain its replies {@code rpcc.chain.replies} and their
     * bytes {@code rpcc.chain.reply.bytes}); returns it.
     */
    public RpccClient.Builder applyTo(RpccClient.Builder builder) {
        return builder.decorator(new ChainMeters(registry));
    }

    /**
     * Registers meters that read {@code server}'s counters ({@link RpccServer#stats()}) when the
     * registry is read, tagged {@code node=<server's name>}: connections, refusals by cause, the
     * function cache, failovers and more (see the guide's table). Call it once per server, after
     * {@code build()}.
     */
    public void bind(RpccServer server) {
        NodeMeters.bind(registry, Objects.requireNonNull(server, "server"));
    }

    /**
     * Registers meters that read {@code client}'s counters ({@link RpccClient#stats()}) when the
     * registry is read, tagged {@code node=<client's name>}: connections, chains in flight, refusals by
     * cause, retries, failovers and more. Call it once per client, after {@code build()}.
     */
    public void bind(RpccClient client) {
        NodeMeters.bind(registry, Objects.requireNonNull(client, "client"));
    }

    /** The registry meters are recorded in. */
    public MeterRegistry registry() {
        return registry;
    }
}
