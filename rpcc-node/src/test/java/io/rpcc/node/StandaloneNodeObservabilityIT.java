package io.rpcc.node;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.rpcc.client.ChainCall;
import io.rpcc.client.RpccClient;
import io.rpcc.core.StaticNameResolver;
import io.rpcc.core.StaticRoute;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The packaged node's metrics and traces as users run it: two node processes ({@code java -jar
 * rpcc-node.jar}, a service jar in each one's services directory) configured with {@code RPCC_*}
 * variables to export traces to an OTLP/HTTP endpoint in this JVM; after a chain a -> b, each serves
 * its meters at {@code /metrics} beside {@code /ready}, and the endpoint has received one trace with
 * spans from both nodes, b's hop under a's.
 */
class StandaloneNodeObservabilityIT {
    private static final Duration START = Duration.ofSeconds(90);

    @TempDir
    Path work;

    @BeforeEach
    void needsTheDist() {
        NodeProcess.requireIntegrationTestPhase();
    }

    @Test
    void aChainAcrossTwoNodeProcessesIsOneTraceAtTheOtlpEndpointAndCountedAtMetrics() throws Exception {
        Path services = ServiceJar.demo().writeTo(work.resolve("services/demo.jar")).getParent();
        int portA = freePort(), portB = freePort(), healthA = freePort(), healthB = freePort();
        String peers = "a=127.0.0.1:" + portA + ",b=127.0.0.1:" + portB;
        try (OtlpReceiver otlp = OtlpReceiver.start("127.0.0.1");
             NodeProcess a = NodeProcess.start("a", work.resolve("a"), env("a", portA, healthA, peers, services, otlp));
             NodeProcess b = NodeProcess.start("b", work.resolve("b"), env("b", portB, healthB, peers, services, otlp));
             HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build()) {
            a.awaitLine("rpcc node 'a' ready", START);
            b.awaitLine("rpcc node 'b' ready", START);

            StaticNameResolver names = new StaticNameResolver()
                    .register("a", new InetSocketAddress("127.0.0.1", portA))
                    .register("b", new InetSocketAddress("127.0.0.1", portB));
            try (RpccClient client = RpccClient.builder().resolver(names).timeout(Duration.ofSeconds(60)).build().start()) {
                // greet at a, then echo at b
                assertEquals("hello world", client.runChain(ChainCall.along(StaticRoute.of(StaticRoute.hop("a", "greet"),
                        StaticRoute.hop("b", "echo")), "world")).value());
            }

            // the client here is not traced: the trace starts at a's hop and goes on to b in the chain's metadata
            List<OtlpReceiver.Span> spans = otlp.await(s -> services(s).containsAll(Set.of("a", "b"))
                    && s.stream().filter(span -> span.name().startsWith("rpcc hop")).count() >= 2, Duration.ofSeconds(60));
            String all = spans + "\n" + a.stderr() + "\n" + b.stderr();
            assertEquals(Set.of("a", "b"), services(spans), all);
            assertEquals(1, spans.stream().map(OtlpReceiver.Span::traceId).distinct().count(), "one trace: " + all);
            OtlpReceiver.Span hopAtB = spans.stream().filter(s -> s.service().equals("b") && s.name().equals("rpcc hop echo"))
                    .findFirst().orElseThrow(() -> new AssertionError("no hop span at b: " + all));
            assertTrue(spans.stream().anyMatch(s -> s.service().equals("a") && s.spanId().equals(hopAtB.parentSpanId())),
                    "b's hop is a child of a span at a: " + all);
            assertTrue(spans.stream().anyMatch(s -> s.service().equals("a") && s.name().equals("rpcc hop greet")), all);
            assertTrue(otlp.contentTypes().stream().allMatch(type -> type.startsWith("application/x-protobuf")),
                    otlp.contentTypes().toString());

            // /metrics beside /ready: the JVM's meters and the hops each node ran
            String metricsA = get(http, healthA, "/metrics");
            assertTrue(metricsA.contains("jvm_memory_used_bytes{"), metricsA);
            assertTrue(hopCount(metricsA, "greet") >= 1, metricsA);
            assertTrue(hopCount(get(http, healthB, "/metrics"), "echo") >= 1);

            assertEquals(0, a.terminate(Duration.ofSeconds(30)), a.stderr());
            assertEquals(0, b.terminate(Duration.ofSeconds(30)), b.stderr());
        }
    }

    /** The count of {@code rpcc.hop.duration} for the service function {@code function}, summed over its other tags. */
    private static double hopCount(String metrics, String function) {
        return metrics.lines().filter(line -> line.startsWith("rpcc_hop_duration_seconds_count{")
                        && line.contains("function=\"" + function + "\""))
                .mapToDouble(line -> Double.parseDouble(line.substring(line.lastIndexOf(' ') + 1))).sum();
    }

    private static Set<String> services(List<OtlpReceiver.Span> spans) {
        return spans.stream().map(OtlpReceiver.Span::service).collect(Collectors.toSet());
    }

    private static Map<String, String> env(String name, int port, int health, String peers, Path services, OtlpReceiver otlp) {
        return Map.of("RPCC_NAME", name, "RPCC_BIND", "127.0.0.1", "RPCC_PORT", Integer.toString(port),
                "RPCC_HEALTH_PORT", Integer.toString(health), "RPCC_PEERS", peers,
                "RPCC_SERVICES_PATH", services.toString(), "RPCC_SERVICES_CLASSES", "demo.Greeter",
                "RPCC_SHUTDOWN_GRACE", "2s", "RPCC_FUNCTIONS_JAVA_ISOLATION", "in-process",
                "RPCC_TRACING_OTLP_ENDPOINT", otlp.endpoint("127.0.0.1"));
    }

    private static String get(HttpClient http, int port, String path) throws IOException, InterruptedException {
        HttpResponse<String> response = http.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path))
                .timeout(Duration.ofSeconds(10)).build(), HttpResponse.BodyHandlers.ofString());
        assertEquals(200, response.statusCode(), path + ": " + response.body());
        return response.body();
    }

    private static int freePort() throws IOException {
        try (ServerSocket s = new ServerSocket(0)) {
            return s.getLocalPort();
        }
    }
}
