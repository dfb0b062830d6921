package io.rpcc.observability;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationRegistry;
import io.opentelemetry.api.common.AttributeKey;
import io.opentelemetry.api.trace.StatusCode;
import io.opentelemetry.sdk.trace.data.EventData;
import io.opentelemetry.sdk.trace.data.SpanData;
import io.opentelemetry.sdk.trace.samplers.Sampler;
import io.rpcc.client.ChainCall;
import io.rpcc.client.ReplySet;
import io.rpcc.client.RetryPolicy;
import io.rpcc.client.RpccClient;
import io.rpcc.core.ChainContext;
import io.rpcc.core.ChainingFunctionSource;
import io.rpcc.core.HopUnreachableException;
import io.rpcc.core.ServiceFunctionException;
import io.rpcc.core.StaticRoute;
import io.rpcc.core.SubChain;
import io.rpcc.observability.testing.OtelTracing;
import io.rpcc.server.RpccServer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Traces of chains on real nodes, recorded through Micrometer Tracing's OpenTelemetry bridge in an
 * in-memory exporter and compared with the expected span tree.
 */
@Timeout(value = 2, unit = TimeUnit.MINUTES)
class RpccTracingTest {
    static final AttributeKey<String> NODE = AttributeKey.stringKey(RpccObservations.NODE);

    final Cluster cluster = new Cluster();
    OtelTracing otel;

    @AfterEach
    void stop() throws Exception {
        cluster.close();
        if (otel != null) {
            otel.close();
        }
    }

    /** After its service function, the chain splits into leaf at n2 and n3, merged at n3. */
    static final ChainingFunctionSource FORK = ChainingFunctionSource.java("""
            import io.rpcc.core.*;
            import java.util.List;
            public class Fork implements ChainingFunction {
                public NextHop apply(ChainState state, Object result) {
                    return NextHop.split(List.of(NextHop.callThenEnd("n2", "leaf", result + "-2"),
                            NextHop.callThenEnd("n3", "leaf", result + "-3"))).mergeAt("n3");
                }
            }
            """);

    /** Three traced nodes: start (a reply, then a sub-chain to sub at n2), sub (a reply), leaf (a reply at n3), boom. */
    private void threeNodes(RpccTracing tracing) {
        for (String name : List.of("n1", "n2", "n3")) {
            cluster.server(name, b -> tracing.applyTo(b)
                    .service("start", p -> {
                        ChainContext.current().preturn("r1");
                        return SubChain.to("n2", "sub").params(p + "+").composition(false);
                    })
                    .service("sub", p -> {
                        ChainContext.current().preturn("r2");
                        return p;
                    })
                    .service("leaf", p -> {
                        if (ChainContext.current().node().equals("n3")) {
                            ChainContext.current().preturn("r3");
                        }
                        return p;
                    })
                    .service("see", p -> p)
                    .service("boom", p -> {
                        throw new IllegalStateException("boom at " + ChainContext.current().node());
                    }));
        }
    }

    @Test
    void aChainWithASubChainASplitAndRepliesIsOneTraceOfTheExpectedTree() throws Exception {
        otel = new OtelTracing(Sampler.alwaysOn());
        RpccTracing tracing = RpccTracing.of(otel.registry);
        threeNodes(tracing);
        RpccClient client = cluster.client(tracing::applyTo);
        ReplySet<String> replies = client.startChainWithReplies(ChainCall.to("n1", "start").params("x")
                .chainingFunction(FORK), String.class);
        List<String> got = new ArrayList<>();
        replies.forEach(got::add);
        replies.awaitDone();
        assertEquals(List.of("x+-2", "x+-3"), replies.result().get().value());
        assertEquals(List.of("r1", "r2", "r3"), got.stream().sorted().toList());

        List<SpanData> spans = awaitSpans(17);
        assertEquals(1, spans.stream().map(SpanData::getTraceId).distinct().count(), "one trace: " + spans);
        assertEquals("""
                rpcc chain n1 start CLIENT [rpcc.result]
                  rpcc hop start SERVER @n1 [rpcc.reply]
                    rpcc send n2 sub CLIENT @n1
                      rpcc hop sub SERVER @n2 [rpcc.reply]
                        rpcc send (sub_chain_result) CLIENT @n2
                          rpcc hop (sub_chain_return) SERVER @n1
                            rpcc chaining INTERNAL @n1
                            rpcc send (split_opening) CLIENT @n1
                              rpcc hop (merge) SERVER @n3
                            rpcc send n2 leaf CLIENT @n1
                              rpcc hop leaf SERVER @n2
                                rpcc service leaf INTERNAL @n2
                            rpcc send n3 leaf CLIENT @n1
                              rpcc hop leaf SERVER @n3 [rpcc.reply]
                                rpcc service leaf INTERNAL @n3
                        rpcc service sub INTERNAL @n2
                    rpcc service start INTERNAL @n1
                """, tree(spans));
    }

    @Test
    void aTraceparentInTheCallsMetadataIsHonoured() throws Exception {
        otel = new OtelTracing(Sampler.alwaysOn());
        threeNodes(RpccTracing.of(otel.registry));
        RpccClient untraced = cluster.client(b -> b);
        String traceId = "4bf92f3577b34da6a3ce929d0e0e4736";
        String caller = "00f067aa0ba902b7";
        untraced.runChain(ChainCall.to("n1", "see").params("x").metadata("traceparent", "00-" + traceId + "-" + caller
                + "-01"));
        List<SpanData> spans = awaitSpans(2);
        assertEquals(List.of(traceId), spans.stream().map(SpanData::getTraceId).distinct().toList(),
                "the hops join the caller's trace");
        SpanData hop = spans.stream().filter(s -> s.getName().equals("rpcc hop see")).findFirst().orElseThrow();
        assertEquals(caller, hop.getParentSpanId(), "the first hop is the caller's span's child");
    }

    @Test
    void aChainStartedInsideAnObservationIsItsChild() throws Exception {
        otel = new OtelTracing(Sampler.alwaysOn());
        RpccTracing tracing = RpccTracing.of(otel.registry);
        threeNodes(tracing);
        RpccClient client = cluster.client(tracing::applyTo);
        Observation request = Observation.start("http.request", otel.registry);
        try (Observation.Scope ignored = request.openScope()) {
            assertEquals("x", client.runChain(ChainCall.to("n1", "see").params("x")).value());
        }
        request.stop();
        assertEquals("""
                http.request INTERNAL
                  rpcc chain n1 see CLIENT [rpcc.result]
                    rpcc hop see SERVER @n1
                      rpcc service see INTERNAL @n1
                """, tree(awaitSpans(4)));
    }

    @Test
    void aFailingHopsSpanHasTheErrorItsCodeAndWhere() throws Exception {
        otel = new OtelTracing(Sampler.alwaysOn());
        RpccTracing tracing = RpccTracing.of(otel.registry);
        threeNodes(tracing);
        RpccClient client = cluster.client(tracing::applyTo);
        assertThrows(ServiceFunctionException.class, () -> client.runChain(ChainCall.to("n1", "boom").params("x")));
        List<SpanData> spans = awaitSpans(3);
        assertEquals("""
                rpcc chain n1 boom CLIENT [exception] ERROR
                  rpcc hop boom SERVER @n1 [exception] ERROR
                    rpcc service boom INTERNAL @n1 [exception] ERROR
                """, tree(spans));
        for (String name : List.of("rpcc chain n1 boom", "rpcc hop boom")) {
            SpanData span = spans.stream().filter(s -> s.getName().equals(name)).findFirst().orElseThrow();
            assertEquals("SERVICE_FUNCTION_FAILED", span.getAttributes().get(AttributeKey.stringKey(RpccObservations.ERROR_CODE)),
                    name);
            assertEquals("n1", span.getAttributes().get(AttributeKey.stringKey(RpccObservations.ERROR_HOST)), name);
            assertEquals("1", span.getAttributes().get(AttributeKey.stringKey(RpccObservations.ERROR_HOP)), name);
        }
        SpanData hop = spans.stream().filter(s -> s.getName().equals("rpcc hop boom")).findFirst().orElseThrow();
        assertEquals("FAILED", hop.getAttributes().get(AttributeKey.stringKey(RpccObservations.HOP_OUTCOME)));
        assertEquals("service", hop.getAttributes().get(AttributeKey.stringKey(RpccObservations.HOP_KIND)));
    }

    @Test
    void retriesAreEventsOfTheChainsSpan() throws Exception {
        otel = new OtelTracing(Sampler.alwaysOn());
        RpccTracing tracing = RpccTracing.of(otel.registry);
        int dead;
        try (java.net.ServerSocket s = new java.net.ServerSocket(0)) {
            dead = s.getLocalPort();
        }
        cluster.names.register("gone", new java.net.InetSocketAddress("127.0.0.1", dead)); // never there
        RpccClient client = cluster.client(b -> tracing.applyTo(b).retryPolicy(RetryPolicy.attempts(3)
                .backoff(Duration.ofMillis(10), Duration.ofMillis(10), 1)));
        assertThrows(HopUnreachableException.class, () -> client.runChain(ChainCall.to("gone", "see").params("x")));
        assertEquals("""
                rpcc chain gone see CLIENT [rpcc.retry, rpcc.retry, exception] ERROR
                """, tree(awaitSpans(1)));
    }

    @Test
    void failoversAreEventsOfTheSpanThatSentTheRequest() throws Exception {
        otel = new OtelTracing(Sampler.alwaysOn());
        RpccTracing tracing = RpccTracing.of(otel.registry);
        threeNodes(tracing);
        java.net.InetSocketAddress n1 = cluster.names.resolve("n1").orElseThrow();
        java.net.InetSocketAddress n2 = cluster.names.resolve("n2").orElseThrow();
        java.net.InetSocketAddress dead1 = deadAddress();
        java.net.InetSocketAddress dead2 = deadAddress();
        cluster.names.register("n1", dead1, n1); // the first endpoint of each name is dead
        cluster.names.register("n2", dead2, n2);
        RpccClient client = cluster.client(tracing::applyTo);
        assertEquals("x", client.runChain(ChainCall.along(StaticRoute.of(StaticRoute.hop("n1", "see"),
                StaticRoute.hop("n2", "see")), "x")).value());

        List<SpanData> spans = awaitSpans(8);
        assertEquals("""
                rpcc chain n1 see CLIENT [rpcc.failover, rpcc.result]
                  rpcc hop see SERVER @n1 [rpcc.failover]
                    rpcc chaining INTERNAL @n1
                    rpcc send n2 see CLIENT @n1
                      rpcc hop see SERVER @n2
                        rpcc chaining INTERNAL @n2
                        rpcc service see INTERNAL @n2
                    rpcc service see INTERNAL @n1
                """, tree(spans, name -> name.split(" ")[0]));
        String atClient = eventOf(spans, "rpcc chain n1 see", RpccObservations.EVENT_FAILOVER);
        assertTrue(atClient.startsWith("rpcc.failover n1 127.0.0.1:" + dead1.getPort() + " -> 127.0.0.1:" + n1.getPort()
                + ": ") && atClient.contains(":" + dead1.getPort() + ": "), atClient);
        String atN1 = eventOf(spans, "rpcc hop see", RpccObservations.EVENT_FAILOVER);
        assertTrue(atN1.startsWith("rpcc.failover n2 127.0.0.1:" + dead2.getPort() + " -> 127.0.0.1:" + n2.getPort()
                + ": ") && atN1.contains(":" + dead2.getPort() + ": "), atN1);
    }

    private static java.net.InetSocketAddress deadAddress() throws java.io.IOException {
        try (java.net.ServerSocket s = new java.net.ServerSocket(0)) {
            return new java.net.InetSocketAddress("127.0.0.1", s.getLocalPort()); // closed: nobody listens
        }
    }

    /** The full name of the event of span {@code spanName} whose name begins with {@code event}. */
    private static String eventOf(List<SpanData> spans, String spanName, String event) {
        return spans.stream().filter(s -> s.getName().equals(spanName) && !s.getEvents().isEmpty())
                .flatMap(s -> s.getEvents().stream()).map(EventData::getName).filter(n -> n.startsWith(event + " "))
                .findFirst().orElseThrow(() -> new AssertionError("no " + event + " event on " + spanName + ": " + spans));
    }

    @Test
    void anUnsampledTraceRecordsNothingAndItsChainsWork() throws Exception {
        otel = new OtelTracing(Sampler.alwaysOff());
        RpccTracing tracing = RpccTracing.of(otel.registry);
        threeNodes(tracing);
        RpccClient client = cluster.client(tracing::applyTo);
        ReplySet<String> replies = client.startChainWithReplies(ChainCall.to("n1", "start").params("x")
                .chainingFunction(FORK), String.class);
        assertEquals(3, replies.stream().count());
        assertEquals(List.of("x+-2", "x+-3"), replies.result().get().value());
        Thread.sleep(500); // the hops' spans would have ended by now
        assertEquals(List.of(), otel.exporter.getFinishedSpanItems(), "nothing recorded");
    }

    @Test
    void withTheNoopRegistryNothingIsApplied() {
        RpccTracing tracing = RpccTracing.of(ObservationRegistry.NOOP);
        RpccServer.Builder b = RpccServer.builder("n1");
        assertSame(b, tracing.applyTo(b));
        cluster.server("n1", nb -> tracing.applyTo(nb).service("meta", p -> ChainContext.current().metadata().size()));
        assertEquals(0, cluster.client(tracing::applyTo).runChain(ChainCall.to("n1", "meta")).value(),
                "no trace context written");
    }

    /** The spans as an indented tree: name, kind, node, events (children sorted), ERROR for a failed span. */
    static String tree(List<SpanData> spans) {
        return tree(spans, name -> name);
    }

    /** As {@link #tree(List)}, each event's name shown as {@code event} makes it. */
    static String tree(List<SpanData> spans, Function<String, String> event) {
        Map<String, List<SpanData>> children = spans.stream().collect(Collectors.groupingBy(SpanData::getParentSpanId));
        StringBuilder sb = new StringBuilder();
        java.util.Set<String> ids = spans.stream().map(SpanData::getSpanId).collect(Collectors.toSet());
        List<SpanData> roots = spans.stream().filter(s -> !ids.contains(s.getParentSpanId())).toList();
        render(roots, children, 0, sb, event);
        return sb.toString();
    }

    private static void render(List<SpanData> level, Map<String, List<SpanData>> children, int depth, StringBuilder sb,
                               Function<String, String> event) {
        Function<SpanData, String> line = s -> s.getName() + " " + s.getKind()
                + (s.getAttributes().get(NODE) != null ? " @" + s.getAttributes().get(NODE) : "")
                + (s.getEvents().isEmpty() ? "" : " " + s.getEvents().stream().map(e -> event.apply(e.getName())).toList())
                + (s.getStatus().getStatusCode() == StatusCode.ERROR ? " ERROR" : "");
        for (SpanData s : level.stream().sorted(Comparator.comparing(line)).toList()) {
            sb.append("  ".repeat(depth)).append(line.apply(s)).append('\n');
            render(children.getOrDefault(s.getSpanId(), List.of()), children, depth + 1, sb, event);
        }
    }

    /** The finished spans, once there are {@code n} and no more come for a moment. */
    private List<SpanData> awaitSpans(int n) throws InterruptedException {
        long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
        while (System.nanoTime() < end && otel.exporter.getFinishedSpanItems().size() < n) {
            Thread.sleep(10);
        }
        Thread.sleep(200); // any further span would come now
        return otel.exporter.getFinishedSpanItems();
    }
}
