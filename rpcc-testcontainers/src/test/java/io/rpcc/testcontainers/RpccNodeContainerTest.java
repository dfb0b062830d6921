package io.rpcc.testcontainers;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

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
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
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
    @Container
    static final RpccNodeContainer repo = node("repo").withRepository();
    @Container
    static final RpccNodeContainer a = node("node-a").withServices(ChainServices.class, GreetingModule.class);
    @Container
    static final RpccNodeContainer b = node("node-b").withServices(servicesJar())      // a jar file, as users pass theirs
            .withServiceClasses(ChainServices.class.getName());
    @Container
    static final RpccNodeContainer c = node("node-c").withServices(ChainServices.class);
    static RpccClient client;

    static {
        for (RpccNodeContainer n : List.of(repo, a, b, c)) {
            n.withPeers(repo, a, b, c);
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
