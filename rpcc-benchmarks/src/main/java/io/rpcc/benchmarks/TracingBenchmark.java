package io.rpcc.benchmarks;

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
import io.opentelemetry.sdk.common.CompletableResultCode;
import io.opentelemetry.sdk.trace.SdkTracerProvider;
import io.opentelemetry.sdk.trace.data.SpanData;
import io.opentelemetry.sdk.trace.export.BatchSpanProcessor;
import io.opentelemetry.sdk.trace.export.SpanExporter;
import io.opentelemetry.sdk.trace.samplers.Sampler;
import io.rpcc.client.ChainCall;
import io.rpcc.client.RpccClient;
import io.rpcc.core.StaticNameResolver;
import io.rpcc.core.StaticRoute;
import io.rpcc.observability.RpccTracing;
import io.rpcc.server.RpccServer;
import java.util.Collection;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

/**
 * What tracing ({@link RpccTracing}) costs, side by side in one run, on loopback with the default
 * executors:
 *
 * <ul>
 *   <li>{@code plainCall}: one request/response, client → s1 → client (2 spans when sampled: the
 *       chain's and the hop's, plus the service function's);</li>
 *   <li>{@code chain2Hops}: client → s1 → s2 → client along a static route (the chain, 2 hops, their
 *       service and chaining functions, and the send from s1 to s2).</li>
 * </ul>
 *
 * {@link #tracing}: {@code off} (nothing applied), {@code unsampled} (applied, through Micrometer
 * Tracing's OpenTelemetry bridge with a sampler that records nothing: the trace context still
 * travels) or {@code sampled} (every span recorded by the OpenTelemetry SDK and handed, in batches,
 * to an exporter that drops them: what it costs to make the spans, not to ship them).
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
@Fork(1)
public class TracingBenchmark {
    /** {@code off}, {@code unsampled} or {@code sampled}. */
    @Param({"off", "unsampled", "sampled"})
    public String tracing;

    private final StaticNameResolver names = new StaticNameResolver();
    private final AtomicLong exported = new AtomicLong();
    private OpenTelemetrySdk sdk;
    private RpccServer s1;
    private RpccServer s2;
    private RpccClient client;
    private final ChainCall plain = ChainCall.to("s1", "echo").params("x".repeat(64));
    private final ChainCall twoHops = ChainCall.along(StaticRoute.of(StaticRoute.hop("s1", "echo"),
            StaticRoute.hop("s2", "echo")), "x".repeat(64));

    @Setup(Level.Trial)
    public void start() {
        RpccTracing traced = tracing.equals("off") ? null : RpccTracing.of(registry(tracing.equals("sampled")));
        s1 = server("s1", traced);
        s2 = server("s2", traced);
        RpccClient.Builder b = RpccClient.builder().name("bench-client").resolver(names);
        client = (traced == null ? b : traced.applyTo(b)).build().start();
        plainCall(); // compile the route's chaining function before measuring
        chain2Hops();
    }

    private RpccServer server(String name, RpccTracing traced) {
        RpccServer.Builder b = RpccServer.builder(name).resolver(names).service("echo", p -> p);
        RpccServer s = (traced == null ? b : traced.applyTo(b)).build().start();
        names.register(name, s.address());
        return s;
    }

    /** Micrometer Tracing's handlers over the OpenTelemetry SDK (as Spring Boot wires them), sampling all or none. */
    private ObservationRegistry registry(boolean sampled) {
        ContextPropagators propagators = ContextPropagators.create(W3CTraceContextPropagator.getInstance());
        SpanExporter drop = new SpanExporter() {
            @Override
            public CompletableResultCode export(Collection<SpanData> spans) {
                exported.addAndGet(spans.size());
                return CompletableResultCode.ofSuccess();
            }

            @Override
            public CompletableResultCode flush() {
                return CompletableResultCode.ofSuccess();
            }

            @Override
            public CompletableResultCode shutdown() {
                return CompletableResultCode.ofSuccess();
            }
        };
        SdkTracerProvider provider = SdkTracerProvider.builder()
                .setSampler(Sampler.parentBased(sampled ? Sampler.alwaysOn() : Sampler.alwaysOff()))
                .addSpanProcessor(BatchSpanProcessor.builder(drop).build()).build();
        sdk = OpenTelemetrySdk.builder().setTracerProvider(provider).setPropagators(propagators).build();
        io.opentelemetry.api.trace.Tracer otel = sdk.getTracer("rpcc-benchmark");
        OtelCurrentTraceContext current = new OtelCurrentTraceContext();
        OtelTracer tracer = new OtelTracer(otel, current, event -> { },
                new OtelBaggageManager(current, List.of(), List.of()));
        OtelPropagator propagator = new OtelPropagator(propagators, otel);
        ObservationRegistry registry = ObservationRegistry.create();
        registry.observationConfig().observationHandler(new ObservationHandler.FirstMatchingCompositeObservationHandler(
                new PropagatingSenderTracingObservationHandler<>(tracer, propagator),
                new PropagatingReceiverTracingObservationHandler<>(tracer, propagator),
                new DefaultTracingObservationHandler(tracer)));
        return registry;
    }

    @TearDown(Level.Trial)
    public void stop() {
        client.close();
        s1.close();
        s2.close();
        if (sdk != null) {
            sdk.close();
        }
    }

    @Benchmark
    public Object plainCall() {
        return client.runChain(plain).value();
    }

    @Benchmark
    public Object chain2Hops() {
        return client.runChain(twoHops).value();
    }
}
