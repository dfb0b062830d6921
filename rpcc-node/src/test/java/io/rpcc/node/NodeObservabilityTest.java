package io.rpcc.node;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.rpcc.client.ChainCall;
import io.rpcc.client.RpccClient;
import io.rpcc.core.StaticNameResolver;
import io.rpcc.core.StaticRoute;
import io.rpcc.node.internal.ConfigException;
import io.rpcc.node.internal.ConfigValues;
import io.rpcc.node.internal.NodeConfig;
import io.rpcc.node.internal.StandaloneNode;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The standalone node's metrics and traces, in this JVM: {@code /metrics} beside {@code /ready} with the
 * JVM's and rpcc's meters after a chain, spans exported to an OTLP/HTTP endpoint as configured, and the
 * configuration keys' checks.
 */
class NodeObservabilityTest {
    @TempDir
    Path dir;

    @Test
    void metricsBesideReadyAndTracesToTheOtlpEndpointAfterAChain() throws Exception {
        Path services = ServiceJar.demo().writeTo(dir.resolve("services/demo.jar")).getParent();
        int health = freePort();
        try (OtlpReceiver otlp = OtlpReceiver.start("127.0.0.1");
             HttpClient http = HttpClient.newHttpClient()) {
            StandaloneNode node = start(Map.of("rpcc.name", "a", "rpcc.health.port", Integer.toString(health),
                    "rpcc.services.path", services.toString(),
                    "rpcc.tracing.otlp.endpoint", otlp.endpoint("127.0.0.1")));
            try (RpccClient client = RpccClient.builder().resolver(new StaticNameResolver()
                    .register("a", node.server().address())).timeout(Duration.ofSeconds(30)).build().start()) {
                // two hops at a: echo, then echo again
                assertEquals("x", client.runChain(ChainCall.along(StaticRoute.of(StaticRoute.hop("a", "echo"),
                        StaticRoute.hop("a", "echo")), "x")).value());
                assertEquals("x", client.call("a", "echo", "x").join().value());

                HttpResponse<String> metrics = http.send(HttpRequest.newBuilder(
                        URI.create("http://127.0.0.1:" + health + "/metrics")).build(), HttpResponse.BodyHandlers.ofString());
                assertEquals(200, metrics.statusCode());
                assertEquals("text/plain; version=0.0.4; charset=utf-8", metrics.headers().firstValue("Content-Type").orElse(""));
                assertTrue(metrics.body().contains("jvm_memory_used_bytes{"), "the JVM's meters:\n" + metrics.body());
                assertTrue(rpccSamples(metrics.body()).stream().anyMatch(line -> !line.endsWith(" 0.0")),
                        "rpcc's meters, counting the chains:\n" + metrics.body());
            } finally {
                node.stop(); // exports the spans not yet exported
            }
            List<OtlpReceiver.Span> spans = otlp.await(s -> s.size() >= 2, Duration.ofSeconds(10));
            assertTrue(spans.size() >= 2, "a span per hop at least: " + spans);
            assertTrue(otlp.contentTypes().stream().allMatch(type -> type.startsWith("application/x-protobuf")),
                    otlp.contentTypes().toString());
            assertEquals(Set.of("a"), spans.stream().map(OtlpReceiver.Span::service).collect(Collectors.toSet()),
                    "the service name is the node's name");
            // the chain's call and its two-hop chain: one trace each, whatever the spans inside
            Set<String> traces = spans.stream().map(OtlpReceiver.Span::traceId).collect(Collectors.toSet());
            assertEquals(2, traces.size(), spans.toString());
            assertTrue(spans.stream().noneMatch(s -> s.traceId().isEmpty() || s.spanId().isEmpty()), spans.toString());
        }
    }

    @Test
    void withoutMetricsTheEndpointAnswers404AndWithoutAnEndpointNoTracesAreSent() throws Exception {
        Path services = ServiceJar.demo().writeTo(dir.resolve("services/demo.jar")).getParent();
        int health = freePort();
        StandaloneNode node = start(Map.of("rpcc.name", "b", "rpcc.health.port", Integer.toString(health),
                "rpcc.services.path", services.toString(), "rpcc.metrics.enabled", "false"));
        try (HttpClient http = HttpClient.newHttpClient()) {
            HttpResponse<String> metrics = http.send(HttpRequest.newBuilder(
                    URI.create("http://127.0.0.1:" + health + "/metrics")).build(), HttpResponse.BodyHandlers.ofString());
            assertEquals(404, metrics.statusCode());
            assertTrue(metrics.body().contains("rpcc.metrics.enabled=false"), metrics.body());
        } finally {
            node.stop();
        }
    }

    @Test
    void badTracingKeysAreABadConfiguration() {
        assertEquals("rpcc.tracing.otlp.endpoint = \"collector:4318\" (from test): expected the http:// or https:// URL of"
                + " an OTLP/HTTP traces endpoint, such as http://otel-collector:4318/v1/traces (or no value: no traces)",
                configFails("rpcc.tracing.otlp.endpoint", "collector:4318"));
        assertEquals("rpcc.tracing.sampling.probability = \"10%\" (from test): expected a number from 0 to 1: the share"
                + " of the chains started without a trace context that this node traces, such as 0.1 (1: all, 0: none)",
                configFails("rpcc.tracing.sampling.probability", "10%"));
        assertTrue(configFails("rpcc.tracing.sampling.probability", "1.5").contains("expected a number from 0 to 1"));
        String headers = configFails("rpcc.tracing.otlp.headers", "x-tenant=shop,Bearer secret");
        assertEquals("rpcc.tracing.otlp.headers (value not shown: it may hold credentials): entry 2 has no name=;"
                + " expected comma-separated name=value HTTP headers, such as authorization=Bearer abc,x-tenant=shop", headers);
        assertNotEquals(-1, configFails("rpcc.metrics.enabled", "yes").indexOf("rpcc.metrics.enabled"));

        NodeConfig config = new NodeConfig(ConfigValues.of(Map.of("rpcc.name", "n",
                "rpcc.tracing.otlp.endpoint", "https://otlp.example.com/v1/traces",
                "rpcc.tracing.otlp.headers", "authorization=Bearer a=b, x-tenant=shop",
                "rpcc.tracing.sampling.probability", "0.25"), "test"));
        assertEquals(URI.create("https://otlp.example.com/v1/traces"), config.otlpEndpoint());
        assertEquals(Map.of("authorization", "Bearer a=b", "x-tenant", "shop"), config.otlpHeaders());
        assertEquals(0.25, config.samplingProbability());
        assertTrue(config.metricsEnabled());
        NodeConfig defaults = new NodeConfig(ConfigValues.of(Map.of("rpcc.name", "n"), "test"));
        assertEquals(null, defaults.otlpEndpoint());
        assertEquals(1.0, defaults.samplingProbability());
    }

    private static String configFails(String key, String value) {
        return assertThrows(ConfigException.class, () -> new NodeConfig(ConfigValues.of(Map.of("rpcc.name", "n", key, value),
                "test"))).getMessage();
    }

    /** The samples of rpcc's meters in a Prometheus text page. */
    static List<String> rpccSamples(String page) {
        return page.lines().filter(line -> line.startsWith("rpcc_")).toList();
    }

    private StandaloneNode start(Map<String, String> keys) throws IOException {
        Map<String, String> all = new HashMap<>(Map.of("rpcc.bind", "127.0.0.1", "rpcc.port", "0",
                // in the node's JVM: no runner processes to start and wait for
                "rpcc.functions.java.isolation", "in-process"));
        all.putAll(keys);
        ConfigValues values = ConfigValues.of(all, "test");
        ClassLoader before = Thread.currentThread().getContextClassLoader();
        try {
            return StandaloneNode.start(values, new NodeConfig(values),
                    new PrintStream(new ByteArrayOutputStream(), true, StandardCharsets.UTF_8));
        } finally {
            Thread.currentThread().setContextClassLoader(before);
        }
    }

    private static int freePort() throws IOException {
        try (ServerSocket s = new ServerSocket(0)) {
            return s.getLocalPort();
        }
    }
}
