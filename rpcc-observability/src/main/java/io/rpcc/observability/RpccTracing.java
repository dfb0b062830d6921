package io.rpcc.observability;

import io.micrometer.observation.ObservationRegistry;
import io.rpcc.client.RpccClient;
import io.rpcc.observability.internal.ChainTracingDecorator;
import io.rpcc.observability.internal.HopTracingDecorator;
import io.rpcc.observability.internal.HopTracingInterceptor;
import io.rpcc.server.RpccServer;
import java.util.Objects;

/**
 * Traces of chains: applied to a server's and a client's builder, it records one trace per chain
 * with a span per hop, through the application's {@link ObservationRegistry} (with Micrometer
 * Tracing's bridge to OpenTelemetry or Brave behind it), and carries the W3C trace context in the
 * chain's metadata from hop to hop.
 *
 * <p>The API is Micrometer Observation: spans come from Micrometer Tracing's handlers registered
 * in the registry ({@code PropagatingSenderTracingObservationHandler},
 * {@code PropagatingReceiverTracingObservationHandler}, {@code DefaultTracingObservationHandler}),
 * so OpenTelemetry ({@code micrometer-tracing-bridge-otel}) and Brave
 * ({@code micrometer-tracing-bridge-brave}) both work; the handlers write and read the trace context
 * ({@code traceparent}, {@code tracestate}) in the chain's {@link io.rpcc.core.Metadata}. A chain is
 * one trace: a CLIENT span for the call ({@value RpccObservations#CHAIN}), a SERVER span for each
 * hop ({@value RpccObservations#HOP}) whose parent is the span that sent the request to it, the
 * service function ({@value RpccObservations#SERVICE}) and the chaining function
 * ({@value RpccObservations#CHAINING}) as the hop's children, and a short CLIENT span for each
 * request a hop sends on or hands back ({@value RpccObservations#SEND}). Names and attributes are in
 * {@link RpccObservations}; docs/guides/tracing.md shows the tree of a chain with a sub-chain and a
 * split.
 *
 * <p>Off by default: nothing is recorded unless {@code applyTo} is called, and with
 * {@link ObservationRegistry#NOOP} it adds nothing.
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

    /**
     * Adds this tracing's hop decorator and server interceptor to {@code builder} (after those it has:
     * apply it first for the hop's span to enclose what the others do); returns it. Adds nothing if
     * the registry is {@link ObservationRegistry#NOOP}.
     */
    public RpccServer.Builder applyTo(RpccServer.Builder builder) {
        if (!isNoop()) {
            builder.decorator(new HopTracingDecorator(registry)).interceptor(new HopTracingInterceptor(registry));
        }
        return builder;
    }

    /**
     * Adds this tracing's chain decorator to {@code builder} (after those it has); returns it. Adds
     * nothing if the registry is {@link ObservationRegistry#NOOP}.
     */
    public RpccClient.Builder applyTo(RpccClient.Builder builder) {
        if (!isNoop()) {
            builder.decorator(new ChainTracingDecorator(registry));
        }
        return builder;
    }

    /** Whether the registry records nothing: then {@code applyTo} adds nothing. */
    private boolean isNoop() {
        return registry.isNoop();
    }

    /** The registry observations are recorded in. */
    public ObservationRegistry registry() {
        return registry;
    }
}
