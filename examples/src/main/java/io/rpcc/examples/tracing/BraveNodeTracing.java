package io.rpcc.examples.tracing;

import brave.Tracing;
import brave.handler.SpanHandler;
import brave.sampler.Sampler;
import io.micrometer.observation.ObservationHandler.FirstMatchingCompositeObservationHandler;
import io.micrometer.observation.ObservationRegistry;
import io.micrometer.tracing.Tracer;
import io.micrometer.tracing.brave.bridge.BraveBaggageManager;
import io.micrometer.tracing.brave.bridge.BraveCurrentTraceContext;
import io.micrometer.tracing.brave.bridge.BravePropagator;
import io.micrometer.tracing.brave.bridge.BraveTracer;
import io.micrometer.tracing.brave.bridge.W3CPropagation;
import io.micrometer.tracing.handler.DefaultTracingObservationHandler;
import io.micrometer.tracing.handler.PropagatingReceiverTracingObservationHandler;
import io.micrometer.tracing.handler.PropagatingSenderTracingObservationHandler;

/**
 * The tracing of one node, as an application wires Micrometer Tracing over Brave (and as Spring Boot
 * does): a Brave {@link Tracing} whose local service name is the node's name, W3C trace context
 * ({@code traceparent}) for propagation, every trace sampled, finished spans to the given
 * {@link SpanHandler}s (Zipkin's reporter); and an {@link ObservationRegistry} with Micrometer
 * Tracing's handlers over it, for {@code RpccTracing.of(registry())}.
 *
 * <p>Each node of the example has its own, as each process would: the service name in Zipkin is the
 * node's.
 */
public final class BraveNodeTracing implements AutoCloseable {
    private final Tracing tracing;
    private final Tracer tracer;
    private final ObservationRegistry registry = ObservationRegistry.create();

    /** The tracing of node {@code name}, its finished spans to {@code handlers}. */
    public BraveNodeTracing(String name, SpanHandler... handlers) {
        Tracing.Builder builder = Tracing.newBuilder()
                .localServiceName(name)
                .traceId128Bit(true)               // W3C trace ids are 128-bit
                .supportsJoin(false)               // a server's span is a child of the client's, not the same span
                .propagationFactory(new W3CPropagation())
                .sampler(Sampler.ALWAYS_SAMPLE);
        for (SpanHandler handler : handlers) {
            builder.addSpanHandler(handler);
        }
        tracing = builder.build();
        tracer = new BraveTracer(tracing.tracer(), new BraveCurrentTraceContext(tracing.currentTraceContext()),
                new BraveBaggageManager());
        BravePropagator propagator = new BravePropagator(tracing);
        registry.observationConfig().observationHandler(new FirstMatchingCompositeObservationHandler(
                new PropagatingSenderTracingObservationHandler<>(tracer, propagator),
                new PropagatingReceiverTracingObservationHandler<>(tracer, propagator),
                new DefaultTracingObservationHandler(tracer)));
    }

    /** The registry to trace this node's chains in: {@code RpccTracing.of(registry())}. */
    public ObservationRegistry registry() {
        return registry;
    }

    /** Micrometer Tracing's tracer over this node's Brave tracer (the current span, its trace id). */
    public Tracer tracer() {
        return tracer;
    }

    /** Closes the Brave tracing (the span handlers stay open: they may be shared between nodes). */
    @Override
    public void close() {
        tracing.close();
    }
}
