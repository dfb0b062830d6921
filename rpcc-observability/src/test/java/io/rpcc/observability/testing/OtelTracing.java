package io.rpcc.observability.testing;

import io.micrometer.observation.ObservationHandler;
import io.micrometer.observation.ObservationRegistry;
import io.micrometer.tracing.handler.DefaultTracingObservationHandler;
import io.micrometer.tracing.handler.PropagatingReceiverTracingObservationHandler;
import io.micrometer.tracing.handler.PropagatingSenderTracingObservationHandler;
import io.micrometer.tracing.otel.bridge.OtelBaggageManager;
import io.micrometer.tracing.otel.bridge.OtelCurrentTraceContext;
import io.micrometer.tracing.otel.bridge.OtelPropagator;
import io.micrometer.tracing.otel.bridge.OtelTracer;
import io.opentelemetry.api.trace.propagation.W3CTraceContextPropagator;
import io.opentelemetry.context.propagation.ContextPropagators;
import io.opentelemetry.sdk.OpenTelemetrySdk;
import io.opentelemetry.sdk.testing.exporter.InMemorySpanExporter;
import io.opentelemetry.sdk.trace.SdkTracerProvider;
import io.opentelemetry.sdk.trace.export.SimpleSpanProcessor;
import io.opentelemetry.sdk.trace.samplers.Sampler;
import java.util.List;

/**
 * For tests: an {@link ObservationRegistry} with Micrometer Tracing's handlers over the OpenTelemetry
 * SDK and the W3C propagator, as Spring Boot's actuator wires it, recording finished spans in an
 * {@link InMemorySpanExporter}. In rpcc-observability's test jar, for other modules' tests too.
 */
public final class OtelTracing implements AutoCloseable {
    /** The finished spans. */
    public final InMemorySpanExporter exporter = InMemorySpanExporter.create();
    /** The SDK behind the tracer. */
    public final OpenTelemetrySdk sdk;
    /** Micrometer Tracing's tracer over the SDK. */
    public final OtelTracer tracer;
    /** The registry to trace chains with ({@code RpccTracing.of(registry)}). */
    public final ObservationRegistry registry = ObservationRegistry.create();

    /** Every span sampled. */
    public OtelTracing() {
        this(Sampler.alwaysOn());
    }

    /** Spans sampled by {@code sampler} (for a trace of its own; a child follows its parent's decision). */
    public OtelTracing(Sampler sampler) {
        ContextPropagators propagators = ContextPropagators.create(W3CTraceContextPropagator.getInstance());
        SdkTracerProvider provider = SdkTracerProvider.builder().setSampler(Sampler.parentBased(sampler))
                .addSpanProcessor(SimpleSpanProcessor.create(exporter)).build();
        sdk = OpenTelemetrySdk.builder().setTracerProvider(provider).setPropagators(propagators).build();
        io.opentelemetry.api.trace.Tracer otel = sdk.getTracer("rpcc-test");
        OtelCurrentTraceContext current = new OtelCurrentTraceContext();
        tracer = new OtelTracer(otel, current, event -> { }, new OtelBaggageManager(current, List.of(), List.of()));
        OtelPropagator propagator = new OtelPropagator(propagators, otel);
        registry.observationConfig().observationHandler(new ObservationHandler.FirstMatchingCompositeObservationHandler(
                new PropagatingSenderTracingObservationHandler<>(tracer, propagator),
                new PropagatingReceiverTracingObservationHandler<>(tracer, propagator),
                new DefaultTracingObservationHandler(tracer)));
    }

    @Override
    public void close() {
        sdk.close();
    }
}
