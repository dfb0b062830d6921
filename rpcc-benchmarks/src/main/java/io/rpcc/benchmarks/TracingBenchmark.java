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
import io.rpcc.core.BranchId;
import io.rpcc.core.ChainContext;
import io.rpcc.core.ChainState;
import io.rpcc.core.Metadata;
import io.rpcc.core.NextHop;
import io.rpcc.core.ServiceFunction;
import io.rpcc.core.StaticNameResolver;
import io.rpcc.core.StaticRoute;
import io.rpcc.core.VirtualConsole;
import io.rpcc.observability.RpccTracing;
import io.rpcc.observability.internal.HopTracingDecorator;
import io.rpcc.observability.internal.HopTracingInterceptor;
import io.rpcc.server.HopDecorator;
import io.rpcc.server.HopOutcome;
import io.rpcc.server.RpccServer;
import java.time.Instant;
import java.util.Collection;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.Executor;
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
 * and, to see what tracing itself costs without the scheduling of a loaded machine in the figure:
 *
 * <ul>
 *   <li>{@code hopAlone}: on the benchmark's thread, what tracing adds to one hop that forwards: the
 *       hop decorator's start, the service and chaining functions' interceptors, the forward's send
 *       span, and the hop's end ({@code off}: the service function alone).</li>
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
    private static final ServiceFunction ECHO = p -> p;
    private final NextHop.Call forward = NextHop.callThenEnd("s2", "echo", "x");
    private ChainContext hopContext;
    private HopDecorator.Start hopStart;
    private HopTracingDecorator hopDecorator;
    private HopTracingInterceptor hopInterceptor;
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
        // the trace context a hop receives: sampled or not, as the client's would say
        hopContext = new StubContext(Metadata.empty().with("traceparent", "00-4bf92f3577b34da6a3ce929d0e0e4736-"
                + "00f067aa0ba902b7-" + (tracing.equals("sampled") ? "01" : "00")));
        hopStart = new HopDecorator.Start(HopDecorator.Kind.SERVICE, hopContext, "echo");
        if (traced != null) {
            hopDecorator = new HopTracingDecorator(traced.registry());
            hopInterceptor = new HopTracingInterceptor(traced.registry());
        }
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
    public Object hopAlone() throws Exception {
        if (hopDecorator == null) {
            return ECHO.apply(plain.params());
        }
        HopDecorator.Listener listener = hopDecorator.decorate(hopStart);
        Object result = hopInterceptor.interceptService(hopContext, "echo", plain.params(), ECHO);
        NextHop next = hopInterceptor.interceptChaining(hopContext, ChainState.empty(), result, (st, r) -> forward);
        Metadata metadata = hopInterceptor.interceptForward(hopContext, forward, hopContext.metadata());
        listener.afterRun();
        listener.ended(new HopOutcome.Forwarded("s2", "echo"), null);
        return metadata.size() + (next == forward ? 1 : 0);
    }

    @Benchmark
    public Object plainCall() {
        return client.runChain(plain).value();
    }

    @Benchmark
    public Object chain2Hops() {
        return client.runChain(twoHops).value();
    }

    /**
     * The context of a hop that is not running anywhere: what {@code hopAlone}'s decorator and
     * interceptor read (ids, node, metadata); the rest is not used.
     */
    private static final class StubContext implements ChainContext {
        private final Metadata metadata;

        StubContext(Metadata metadata) {
            this.metadata = metadata;
        }

        @Override public String chainId() { return "bench-client#1"; }
        @Override public String originator() { return "bench-client"; }
        @Override public int hop() { return 1; }
        @Override public String node() { return "s1"; }
        @Override public VirtualConsole console() { throw new UnsupportedOperationException(); }
        @Override public Instant deadline() { return Instant.MAX; }
        @Override public boolean isCancelled() { return false; }
        @Override public void preturn(Object reply) { throw new UnsupportedOperationException(); }
        @Override public Runnable wrap(Runnable task) { return task; }
        @Override public <V> Callable<V> wrap(Callable<V> task) { return task; }
        @Override public Executor executor(Executor executor) { return executor; }
        @Override public <S extends CompletionStage<?>> S track(S stage) { return stage; }
        @Override public Thread startThread(Runnable task) { throw new UnsupportedOperationException(); }
        @Override public Thread startVirtualThread(Runnable task) { throw new UnsupportedOperationException(); }
        @Override public Metadata metadata() { return metadata; }
        @Override public BranchId branch() { return BranchId.root(); }
    }
}
