package io.rpcc.observability;

import io.micrometer.core.instrument.MeterRegistry;
import io.rpcc.client.RpccClient;
import io.rpcc.server.RpccServer;
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
 * }</pre>
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

    /** Adds the per-hop meters' decorator to {@code builder}; returns it. */
    public RpccServer.Builder applyTo(RpccServer.Builder builder) {
        throw new UnsupportedOperationException("scaffolding: to be written");
    }

    /** Adds the per-chain meters' decorator to {@code builder}; returns it. */
    public RpccClient.Builder applyTo(RpccClient.Builder builder) {
        throw new UnsupportedOperationException("scaffolding: to be written");
    }

    /** Registers meters that read {@code server}'s counters ({@link RpccServer#stats()}). */
    public void bind(RpccServer server) {
        throw new UnsupportedOperationException("scaffolding: to be written");
    }

    /** Registers meters that read {@code client}'s counters ({@link RpccClient#stats()}). */
    public void bind(RpccClient client) {
        throw new UnsupportedOperationException("scaffolding: to be written");
    }

    /** The registry meters are recorded in. */
    public MeterRegistry registry() {
        return registry;
    }
}
