package io.rpcc.observability;

import io.micrometer.observation.ObservationRegistry;
import io.rpcc.client.RpccClient;
import io.rpcc.server.RpccServer;
import java.util.Objects;

/**
 * Traces of chains: applied to a server's and a client's builder, it records one trace per chain
 * with a span per hop, through the application's {@link ObservationRegistry} (with Micrometer
 * Tracing's bridge to OpenTelemetry or Brave behind it), and carries the W3C trace context in the
 * chain's metadata from hop to hop.
 *
 * <pre>{@code
 * RpccTracing tracing = RpccTracing.of(observationRegistry);
 * RpccServer server = tracing.applyTo(RpccServer.builder("inventory")).build();
 * RpccClient client = tracing.applyTo(RpccClient.builder()).build();
 * }</pre>
 */
public final class RpccTracing {
    private final ObservationRegistry registry;

    private RpccTracing(ObservationRegistry registry) {
        this.registry = registry;
    }

    /** Tracing that records in {@code registry}. */
    public static RpccTracing of(ObservationRegistry registry) {
        return new RpccTracing(Objects.requireNonNull(registry, "registry"));
    }

    /** Adds this tracing's decorators and interceptors to {@code builder}; returns it. */
    public RpccServer.Builder applyTo(RpccServer.Builder builder) {
        throw new UnsupportedOperationException("scaffolding: to be written");
    }

    /** Adds this tracing's decorator and interceptor to {@code builder}; returns it. */
    public RpccClient.Builder applyTo(RpccClient.Builder builder) {
        throw new UnsupportedOperationException("scaffolding: to be written");
    }

    /** The registry observations are recorded in. */
    public ObservationRegistry registry() {
        return registry;
    }
}
