package io.rpcc.testcontainers;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.sun.net.httpserver.HttpServer;
import io.rpcc.client.ChainCall;
import io.rpcc.client.ReplySet;
import io.rpcc.client.RpccClient;
import io.rpcc.core.ChainResult;
import io.rpcc.core.ChainState;
import io.rpcc.core.ChainingFunctionNotFoundException;
import io.rpcc.core.ChainingFunctionSource;
import io.rpcc.core.HopUnreachableException;
import io.rpcc.core.ServiceFunctionException;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.extension.ExtendWith;
import org.testcontainers.containers.ContainerLaunchException;
import org.testcontainers.containers.Network;
import org.testcontainers.junit.jupiter.Container;
import org.testcontainers.junit.jupiter.Testcontainers;

/**
 * A client in the test JVM runs chains across three node containers and a repository container of
 * the real {@code rpcc-node} image: hops go container to container by network alias, results and
 * partial replies come straight back to the client, and chaining functions travel by reference
 * through the repository. The last test stops a node and checks the typed error that names it.
 * The containers are shared by the class (started once, in parallel; stopped by the extension).
 */
@ExtendWith(DockerRequirement.class)
@Testcontainers(parallel = true)
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class RpccNodeContainerTest {
    private static final String IMAGE = DockerRequirement.IMAGE;
    private static final Duration TIMEOUT = Duration.ofSeconds(60);
    private static final ChainingFunctionSource RELAY =
            ChainingFunctionSource.javaResource(RpccNodeContainerTest.class, "/chains/Relay.java");
    private static final ChainingFunctionSource COUNT_ALONG =
            ChainingFunctionSource.javaResource(RpccNodeContainerTest.class, "/chains/CountAlong.java");

    static final Network network = Network.newNetwork();
    /** An OTLP/HTTP traces endpoint in this JVM, which node-b exports its spans to: the bodies it received. */
    static final List<byte[]> otlpRequests = new CopyOnWriteArrayList<>();
    static final HttpServer otlp = otlpEndpoint();
    @Container
    static final RpccNodeContainer repo = node("repo").withRepository();
    @Container
    static final RpccNodeContainer a = node("node-a").withServices(ChainServices.class, GreetingModule.class);
    @Container
    static final RpccNodeContainer b = node("node-b").withServices(servicesJar())      // a jar file, as users pass theirs
            .withServiceClasses(ChainServices.class.getName())
            .withNodeProperty("rpcc.tracing.otlp.endpoint", "http://" + RpccNodeContainer.HOST_ALIAS + ":"
                    + otlp.getAddress().getPort() + "/v1/traces");
    @Container
    static final RpccNodeContainer c = node("node-c").withServices(ChainServices.class);
    static RpccClient client;

    static {
        for (RpccNodeContainer n : List.of(repo, a, b, c)) {
            n.withPeers(repo, a, b, c);
        }
    }

    private static HttpServer otlpEndpoint() {
        try {
            HttpServer http = HttpServer.create(new InetSocketAddress("0.0.0.0", 0), 16);
            http.createContext("/v1/traces", exchange -> {
                try (exchange) {
                    byte[] body = exchange.getRequestBody().readAllBytes();
                    if ("application/x-protobuf".equals(exchange.getRequestHeaders().getFirst("Content-Type"))) {
                        otlpRequests.add(body);
                    }
                    exchange.sendResponseHeaders(200, -1);
                }
            });
            http.start();
            return http;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static Path servicesJar() {
        try {
            Path jar = Files.createTempFile("chain-services", ".jar");
            jar.toFile().deleteOnExit();
            return Files.write(jar, ServiceJar.of(List.of(ChainServices.class)));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static RpccNodeContainer node(String name) {
        return new RpccNodeContainer(IMAGE, name).withNetwork(network).withNodeProperty("rpcc.shutdown.grace", "2s");
    }

    @BeforeAll
    static void startClient() {
        client = RpccNodeContainer.clientBuilder(repo, a, b, c)
                .repository("repo")
                .inlineFunctionLimit(0)            // every chaining function travels by reference
                .timeout(TIMEOUT)
                .build().start();
    }

    @AfterAll
    static void stopClient() {
        otlp.stop(0);
        if (client != null) {
            client.close();
        }
        for (RpccNodeContainer n : List.of(repo, a, b, c)) {
            System.out.println("== logs of " + n.getNodeName() + "\n" + n.getLogs());
        }
    }

    @Test
    @Order(1)
    void javaChainingFunctionRunsAMultiHopChainAcrossTheContainers() {
        ChainResult r = client.runChain(ChainCall.to("node-a", "hello").params("relay").chainingFunction(RELAY)
                .state(ChainState.of("seen", List.of(), "route", new ArrayList<>(List.of("node-b", "node-c")))));

        assertEquals(List.of("hello relay from node-a", "hello relay from node-b", "hello relay from node-c"), r.value());
        assertEquals(List.of("node-a", "node-b", "node-c"), r.path());
    }

    @Test
    @Order(2)
    void partialRepliesFromTwoContainersComeStraightBackToTheClient() {
        ReplySet<String> replies = client.startChainWithReplies(ChainCall.to("node-b", "count").params(2)
                .chainingFunction(COUNT_ALONG).state(ChainState.of("next", "node-c", "function", "count", "n", 3)), String.class);

        List<String> received = replies.stream().sorted().toList();

        assertEquals(List.of("node-b:1", "node-b:2", "node-c:1", "node-c:2", "node-c:3"), received);
        assertTrue(!replies.isPartial() && !replies.timedOut(), "the set ended complete");
        assertEquals(3, replies.result().join().value());
        assertEquals(List.of("node-b", "node-c"), replies.result().join().path());
    }

    @Test
    @Order(3)
    void aServiceFunctionThatFailsAfterRepliesEndsTheSetPartialNamingItsHost() {
        ReplySet<String> replies = client.startChainWithReplies(ChainCall.to("node-a", "count").params(1)
                .chainingFunction(COUNT_ALONG).state(ChainState.of("next", "node-b", "function", "count-then-fail", "n", 2)),
                String.class);

        List<String> received = replies.stream().sorted().toList();

        assertEquals(List.of("node-a:1", "node-b:1", "node-b:2"), received);
        assertTrue(replies.isPartial());
        ServiceFunctionException e = assertInstanceOf(ServiceFunctionException.class, replies.error());
        assertEquals("node-b", e.host());
        assertTrue(e.remoteMessage().contains("failed after 2 replies"), e.remoteMessage());
    }

    @Test
    @Order(4)
    void javaScriptChainingFunctionRunsAtTheContainers() {
        ChainingFunctionSource js = ChainingFunctionSource.javascript("""
                (state, result) => {
                    if (state.step === 'first')
                        return rpcc.call('node-b', 'hello', 'js', {...state, step: 'second', first: result});
                    return rpcc.end(state.first + ' | ' + result);
                }
                """);

        ChainResult r = client.runChain(ChainCall.to("node-c", "hello").params("js").chainingFunction(js)
                .state(ChainState.of("step", "first")));

        assertEquals("hello js from node-c | hello js from node-b", r.value());
        assertEquals(List.of("node-c", "node-b"), r.path());
    }

    @Test
    @Order(5)
    void functionsTravelByReferenceAndAnUnknownReferenceFailsTyped() {
        ChainingFunctionSource uploaded = client.upload(RELAY);
        assertTrue(uploaded.isReference());
        assertEquals("repo", uploaded.repository());

        ChainingFunctionSource unknown = ChainingFunctionSource.reference("java:" + "0".repeat(64), "repo");
        ChainingFunctionNotFoundException e = assertThrows(ChainingFunctionNotFoundException.class,
                () -> client.runChain(ChainCall.to("node-a", "hello").params("x").chainingFunction(unknown)));
        assertEquals("node-a", e.host());
    }

    @Test
    @Order(6)
    void aServiceModuleRegistersItsServiceFunctions() {
        assertEquals("hi module", client.call("node-a", "greet", "module").join().value());
    }

    @Test
    @Order(6)
    void healthEndpointsAnswerFromTheTestJvm() throws Exception {
        try (HttpClient http = HttpClient.newHttpClient()) {
            for (String path : List.of("/live", "/ready")) {
                HttpResponse<Void> response = http.send(HttpRequest.newBuilder(URI.create(b.getHealthUrl() + path)).build(),
                        HttpResponse.BodyHandlers.discarding());
                assertEquals(200, response.statusCode(), path);
            }
        }
    }

    @Test
    @Order(6)
    void eachNodeServesItsMetricsAtTheHealthPort() {
        ChainResult r = client.runChain(ChainCall.to("node-b", "hello").params("metrics"));
        assertEquals("hello metrics from node-b", r.value());

        String metrics = b.getMetrics();
        assertTrue(metrics.contains("jvm_memory_used_bytes{"), metrics);
        double hellos = metrics.lines().filter(line -> line.startsWith("rpcc_hop_duration_seconds_count{")
                        && line.contains("function=\"hello\"") && line.contains("node=\"node-b\""))
                .mapToDouble(line -> Double.parseDouble(line.substring(line.lastIndexOf(' ') + 1))).sum();
        assertTrue(hellos >= 1, "the hop just run, counted at node-b:\n" + metrics);
    }

    @Test
    @Order(6)
    void aNodeExportsItsSpansToTheOtlpEndpointItIsConfiguredWith() throws InterruptedException {
        assertEquals("hello traces from node-b", client.runChain(ChainCall.to("node-b", "hello").params("traces")).value());
        // the span processor exports in batches, every 5 s
        long end = System.nanoTime() + TIMEOUT.toNanos();
        while (otlpRequests.stream().noneMatch(RpccNodeContainerTest::hasNodeBsHelloHop) && System.nanoTime() < end) {
            Thread.sleep(200);
        }
        assertTrue(otlpRequests.stream().anyMatch(RpccNodeContainerTest::hasNodeBsHelloHop), otlpRequests.size()
                + " OTLP requests, none with node-b's span of its hello hop; logs:\n" + b.getLogs());
    }

    /** Whether an OTLP request holds the service name node-b and a span named "rpcc hop hello" (protobuf strings). */
    private static boolean hasNodeBsHelloHop(byte[] request) {
        String text = new String(request, StandardCharsets.ISO_8859_1);
        return text.contains("node-b") && text.contains("rpcc hop hello");
    }

    @Test
    @Order(6)
    void aNodeWithABadConfigurationFailsItsStartAtOnceWithTheNodesMessage() {
        try (RpccNodeContainer bad = new RpccNodeContainer(IMAGE, "bad").withNodeProperty("rpcc.port", "73OO")) {
            Instant start = Instant.now();
            ContainerLaunchException e = assertThrows(ContainerLaunchException.class, bad::start);

            String messages = causes(e);
            assertTrue(messages.contains("node 'bad' exited with code 2 before it was ready"), messages);
            assertTrue(messages.contains("rpcc.port = \"73OO\""), messages);
            assertTrue(Duration.between(start, Instant.now()).compareTo(Duration.ofSeconds(50)) < 0,
                    "failed well before the 60 s startup timeout");
        }
    }

    private static String causes(Throwable e) {
        StringBuilder all = new StringBuilder();
        for (Throwable t = e; t != null; t = t.getCause()) {
            all.append(t.getMessage()).append('\n');
        }
        return all.toString();
    }

    @Test
    @Order(7)
    void aStoppedNodeFailsTheNextChainWithATypedErrorNamingIt() {
        c.getDockerClient().stopContainerCmd(c.getContainerId()).withTimeout(20).exec(); // SIGTERM: graceful shutdown
        assertEquals(0L, c.getCurrentContainerInfo().getState().getExitCodeLong(), "exit code after SIGTERM");
        assertTrue(c.getLogs().contains("rpcc node 'node-c' stopped"), c.getLogs());

        HopUnreachableException e = assertThrows(HopUnreachableException.class,
                () -> client.runChain(ChainCall.to("node-a", "hello").params("relay").chainingFunction(RELAY)
                        .state(ChainState.of("seen", List.of(), "route", new ArrayList<>(List.of("node-c"))))));

        assertEquals("node-a", e.host());
        assertTrue(e.getMessage().contains("node-c"), e.getMessage());
    }
}
