package io.rpcc.node.internal;

import io.micrometer.core.instrument.binder.jvm.ClassLoaderMetrics;
import io.micrometer.core.instrument.binder.jvm.JvmGcMetrics;
import io.micrometer.core.instrument.binder.jvm.JvmInfoMetrics;
import io.micrometer.core.instrument.binder.jvm.JvmMemoryMetrics;
import io.micrometer.core.instrument.binder.jvm.JvmThreadMetrics;
import io.micrometer.core.instrument.binder.system.FileDescriptorMetrics;
import io.micrometer.core.instrument.binder.system.ProcessorMetrics;
import io.micrometer.core.instrument.binder.system.UptimeMetrics;
import io.micrometer.observation.ObservationHandler;
import io.micrometer.observation.ObservationRegistry;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import io.micrometer.tracing.handler.DefaultTracingObservationHandler;
import io.micrometer.tracing.handler.PropagatingReceiverTracingObservationHandler;
import io.micrometer.tracing.handler.PropagatingSenderTracingObservationHandler;
import io.micrometer.tracing.otel.bridge.OtelBaggageManager;
import io.micrometer.tracing.otel.bridge.OtelCurrentTraceContext;
import io.micrometer.tracing.otel.bridge.OtelPropagator;
import io.micrometer.tracing.otel.bridge.OtelTracer;
import io.opentelemetry.api.common.AttributeKey;
import io.opentelemetry.api.common.Attributes;
import io.opentelemetry.api.trace.propagation.W3CTraceContextPropagator;
import io.opentelemetry.context.propagation.ContextPropagators;
import io.opentelemetry.exporter.otlp.http.trace.OtlpHttpSpanExporter;
import io.opentelemetry.exporter.otlp.http.trace.OtlpHttpSpanExporterBuilder;
import io.opentelemetry.sdk.resources.Resource;
import io.opentelemetry.sdk.trace.SdkTracerProvider;
import io.opentelemetry.sdk.trace.export.BatchSpanProcessor;
import io.opentelemetry.sdk.trace.samplers.Sampler;
import io.rpcc.observability.RpccMetrics;
import io.rpcc.observability.RpccTracing;
import io.rpcc.server.RpccServer;
import java.net.URI;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The standalone node's metrics and traces, as its configuration asks: a Prometheus registry with the
 * JVM's meters and rpcc's ({@link RpccMetrics}), served by the health endpoint at {@code /metrics}
 * ({@code rpcc.metrics.enabled}); and spans of its hops ({@link RpccTracing}) through Micrometer
 * Tracing's OpenTelemetry bridge, exported in batches over OTLP/HTTP with the JDK's HTTP client
 * ({@code rpcc.tracing.otlp.*}; the service name is the node's name). {@link #close} flushes the spans
 * not yet exported and stops both.
 */
public final class NodeObservability implements AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(NodeObservability.class);
    /** The content type of Prometheus' text format, which every Prometheus-compatible scraper reads. */
    public static final String PROMETHEUS_CONTENT_TYPE = "text/plain; version=0.0.4; charset=utf-8";
    /** How long {@link #close} waits for the last spans to be exported. */
    private static final long FLUSH_SECONDS = 5;

    private final @Nullable PrometheusMeterRegistry meters;
    private final @Nullable JvmGcMetrics gcMetrics;
    private final @Nullable RpccMetrics metrics;
    private final @Nullable SdkTracerProvider tracerProvider;
    private final @Nullable RpccTracing tracing;

    private NodeObservability(@Nullable PrometheusMeterRegistry meters, @Nullable JvmGcMetrics gcMetrics,
                              @Nullable SdkTracerProvider tracerProvider, @Nullable RpccTracing tracing) {
        this.meters = meters;
        this.gcMetrics = gcMetrics;
        this.metrics = meters == null ? null : RpccMetrics.of(meters);
        this.tracerProvider = tracerProvider;
        this.tracing = tracing;
    }

    /** What {@code config} asks for: metrics unless {@code rpcc.metrics.enabled=false}, traces if an OTLP endpoint is set. */
    public static NodeObservability create(NodeConfig config) {
        PrometheusMeterRegistry meters = null;
        JvmGcMetrics gc = null;
        if (config.metricsEnabled() && config.healthPort() != 0) {
            meters = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
            new ClassLoaderMetrics().bindTo(meters);
            new JvmMemoryMetrics().bindTo(meters);
            gc = new JvmGcMetrics();
            gc.bindTo(meters);
            new JvmThreadMetrics().bindTo(meters);
            new JvmInfoMetrics().bindTo(meters);
            new ProcessorMetrics().bindTo(meters);
            new UptimeMetrics().bindTo(meters);
            new FileDescriptorMetrics().bindTo(meters);
        }
        URI endpoint = config.otlpEndpoint();
        if (endpoint == null) {
            return new NodeObservability(meters, gc, null, null);
        }
        OtlpHttpSpanExporterBuilder exporter = OtlpHttpSpanExporter.builder().setEndpoint(endpoint.toString());
        config.otlpHeaders().forEach(exporter::addHeader);
        SdkTracerProvider provider = SdkTracerProvider.builder()
                .setResource(Resource.getDefault().merge(Resource.create(
                        Attributes.of(AttributeKey.stringKey("service.name"), config.name()))))
                // a hop that brings a trace context follows its sampling decision; a chain without one is
                // traced with the configured probability
                .setSampler(Sampler.parentBased(Sampler.traceIdRatioBased(config.samplingProbability())))
                .addSpanProcessor(BatchSpanProcessor.builder(exporter.build()).build())
                .build();
        io.opentelemetry.api.trace.Tracer otelTracer = provider.get("io.rpcc.node");
        OtelCurrentTraceContext current = new OtelCurrentTraceContext();
        OtelTracer tracer = new OtelTracer(otelTracer, current, event -> { },
                new OtelBaggageManager(current, List.of(), List.of()));
        OtelPropagator propagator = new OtelPropagator(ContextPropagators.create(W3CTraceContextPropagator.getInstance()),
                otelTracer);
        ObservationRegistry observations = ObservationRegistry.create();
        observations.observationConfig().observationHandler(new ObservationHandler.FirstMatchingCompositeObservationHandler(
                new PropagatingSenderTracingObservationHandler<>(tracer, propagator),
                new PropagatingReceiverTracingObservationHandler<>(tracer, propagator),
                new DefaultTracingObservationHandler(tracer)));
        return new NodeObservability(meters, gc, provider, RpccTracing.of(observations));
    }

    /** Adds tracing (outermost) and metrics to the node's server builder, as configured; returns it. */
    public RpccServer.Builder applyTo(RpccServer.Builder builder) {
        if (tracing != null) {
            tracing.applyTo(builder);
        }
        if (metrics != null) {
            metrics.applyTo(builder);
        }
        return builder;
    }

    /** Registers the meters that read the built server's counters. */
    public void bind(RpccServer server) {
        if (metrics != null) {
            metrics.bind(server);
        }
    }

    /** What {@code /metrics} serves (Prometheus' text format), or {@code null} if metrics are off. */
    public @Nullable Supplier<String> metricsEndpoint() {
        PrometheusMeterRegistry registry = meters;
        return registry == null ? null : registry::scrape;
    }

    /** Whether traces are exported. */
    public boolean tracing() {
        return tracing != null;
    }

    /** Exports the spans not yet exported (waiting at most a few seconds), then stops the exporter and the meters. */
    @Override
    public void close() {
        if (tracerProvider != null) {
            tracerProvider.forceFlush().join(FLUSH_SECONDS, TimeUnit.SECONDS);
            tracerProvider.shutdown().join(FLUSH_SECONDS, TimeUnit.SECONDS);
        }
        if (gcMetrics != null) {
            gcMetrics.close();
        }
        if (meters != null) {
            meters.close();
        }
        log.debug("metrics and traces stopped");
    }
}
