package io.rpcc.spring.boot.autoconfigure;

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
import java.util.List;

/**
 * The {@link ObservationRegistry} a Spring Boot application with the actuator and Micrometer Tracing's
 * OpenTelemetry bridge has: tracing handlers over an OpenTelemetry SDK, with the W3C propagator; every span
 * sampled, finished spans kept in an {@link InMemorySpanExporter}.
 */
final class OtelObservations implements AutoCloseable {
    final InMemorySpanExporter spans = InMemorySpanExporter.create();
    final ObservationRegistry registry = ObservationRegistry.create();
    private final OpenTelemetrySdk sdk;

    OtelObservations() {
        ContextPropagators propagators = ContextPropagators.create(W3CTraceContextPropagator.getInstance());
        sdk = OpenTelemetrySdk.builder().setPropagators(propagators)
                .setTracerProvider(SdkTracerProvider.builder().addSpanProcessor(SimpleSpanProcessor.create(spans)).build())
                .build();
        io.opentelemetry.api.trace.Tracer otel = sdk.getTracer("rpcc-spring-test");
        OtelCurrentTraceContext current = new OtelCurrentTraceContext();
        OtelTracer tracer = new OtelTracer(otel, current, event -> { }, new OtelBaggageManager(current, List.of(), List.of()));
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
