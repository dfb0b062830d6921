package io.rpcc.testcontainers;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.rpcc.client.ChainCall;
import io.rpcc.client.RpccClient;
import io.rpcc.core.ChainException;
import io.rpcc.core.ChainResult;
import io.rpcc.core.ChainState;
import io.rpcc.core.ChainingFunctionSource;
import io.rpcc.core.HopUnreachableException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Supplier;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.extension.ExtendWith;
import org.testcontainers.containers.Network;
import org.testcontainers.junit.jupiter.Container;
import org.testcontainers.junit.jupiter.Testcontainers;

/**
 * Fault tests on real containers, as a user writes them: a chain from the client through node
 * {@code front} to node {@code back} fails with a typed error naming {@code back} while it is killed
 * or paused, and runs again after {@link RpccNodeContainer#restart()} or {@link RpccNodeContainer#unpause()}.
 * {@code front} connects with a 2 s timeout and lets idle connections go after 1 s, so that a chain
 * after the fault opens a new connection to {@code back}, which gets no rpcc handshake (on an open
 * connection to a paused node, the hop would wait for front's PINGs to go unanswered, 10 + 5 s by default).
 */
@ExtendWith(DockerRequirement.class)
@Testcontainers(parallel = true)
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class RpccNodeContainerFaultTest {
    private static final ChainingFunctionSource RELAY =
            ChainingFunctionSource.javaResource(RpccNodeContainerFaultTest.class, "/chains/Relay.java");
    /** How long a chain may take to work again after the node is back (reconnect backoff, the JDK's DNS cache). */
    private static final Duration RECOVERY = Duration.ofSeconds(45);

    static final Network network = Network.newNetwork();
    @Container
    static final RpccNodeContainer front = node("front").withNodeProperty("rpcc.timeouts.connect", "2s")
            .withNodeProperty("rpcc.timeouts.idle", "1s");
    @Container
    static final RpccNodeContainer back = node("back");
    static RpccClient client;

    static {
        front.withPeers(back);
        back.withPeers(front);
    }

    private static RpccNodeContainer node(String name) {
        return new RpccNodeContainer(DockerRequirement.IMAGE, name).withNetwork(network).withServices(ChainServices.class)
                .withNodeProperty("rpcc.shutdown.grace", "2s");
    }

    @BeforeAll
    static void startClient() {
        client = RpccNodeContainer.clientBuilder(front, back).timeout(Duration.ofSeconds(30)).build().start();
    }

    @AfterAll
    static void stopClient() {
        if (client != null) {
            client.close();
        }
        for (RpccNodeContainer n : List.of(front, back)) {
            System.out.println("== logs of " + n.getNodeName() + "\n" + n.getLogs());
        }
    }

    private static ChainResult frontToBack() {
        return client.runChain(ChainCall.to("front", "hello").params("relay").chainingFunction(RELAY)
                .state(ChainState.of("seen", List.of(), "route", new ArrayList<>(List.of("back")))));
    }

    @Test
    @Order(1)
    void aKilledNodeFailsTheChainNamingItAndARestartBringsItBackOnNewHostPorts() throws Exception {
        assertEquals(List.of("hello relay from front", "hello relay from back"), frontToBack().value());
        int portBefore = back.getMappedPort(RpccNodeContainer.RPCC_PORT);

        back.kill();

        assertTrue(!back.isRunning(), "killed");
        assertEquals(137L, back.getCurrentContainerInfo().getState().getExitCodeLong(), "SIGKILL: 128 + 9");
        assertTrue(!back.getLogs().contains("rpcc node 'back' stopped"), "no drain on SIGKILL");
        HopUnreachableException e = assertThrows(HopUnreachableException.class, RpccNodeContainerFaultTest::frontToBack);
        assertEquals("front", e.host());
        assertTrue(e.getMessage().contains("'back'"), e.getMessage());
        System.out.println("chain to the killed node: " + e);

        back.restart();

        assertTrue(back.isRunning());
        assertEquals(2, NodeReadyWaitStrategy.readyLines(back.getLogs(), "back"), back.getLogs());
        // the address a client is given is the restarted container's mapping, read from Docker afresh
        assertEquals(Integer.parseInt(back.getCurrentContainerInfo().getNetworkSettings().getPorts().getBindings()
                .get(com.github.dockerjava.api.model.ExposedPort.tcp(RpccNodeContainer.RPCC_PORT))[0].getHostPortSpec()),
                back.getClientAddress().getPort());
        System.out.println("back's rpcc port: " + portBefore + " before the restart, "
                + back.getMappedPort(RpccNodeContainer.RPCC_PORT) + " after");
        // the client's resolver follows the new host port; front finds back by name again
        assertEquals("hello direct from back", client.call("back", "hello", "direct").get().value());
        assertEquals(List.of("hello relay from front", "hello relay from back"), eventually(RpccNodeContainerFaultTest::frontToBack).value());
    }

    @Test
    @Order(2)
    void aPausedNodeFailsTheChainNamingItAndRunsChainsAgainWhenUnpaused() throws Exception {
        eventually(RpccNodeContainerFaultTest::frontToBack);

        back.pause();
        try {
            Thread.sleep(1500); // front lets its idle connection to back go (rpcc.timeouts.idle = 1s)
            assertTrue(back.getCurrentContainerInfo().getState().getPaused(), "paused");

            HopUnreachableException e = assertThrows(HopUnreachableException.class, RpccNodeContainerFaultTest::frontToBack);
            assertEquals("front", e.host());
            // the frozen node's kernel accepts the connection but the node never answers the rpcc handshake:
            // front's 1 s idle timeout closes it ("closed during the rpcc handshake") before its 2 s connect
            // timeout would ("did not answer the rpcc handshake within 2000 ms")
            assertTrue(e.getMessage().contains("'back'") && e.getMessage().contains("rpcc handshake"), e.getMessage());
            System.out.println("chain to the paused node: " + e);
        } finally {
            back.unpause();
        }

        assertTrue(!back.getCurrentContainerInfo().getState().getPaused(), "unpaused");
        assertEquals(List.of("hello relay from front", "hello relay from back"), eventually(RpccNodeContainerFaultTest::frontToBack).value());
    }

    @Test
    @Order(3)
    void aGracefulRestartDrainsAndKeepsTheContainer() throws Exception {
        String id = back.getContainerId();

        back.restart(Duration.ofSeconds(20));

        assertEquals(id, back.getContainerId(), "the same container");
        assertTrue(back.getLogs().contains("rpcc node 'back' stopped"), "drained on SIGTERM:\n" + back.getLogs());
        assertEquals(3, NodeReadyWaitStrategy.readyLines(back.getLogs(), "back"));
        assertEquals("hello again from back", client.call("back", "hello", "again").get().value());
        assertEquals(List.of("hello relay from front", "hello relay from back"), eventually(RpccNodeContainerFaultTest::frontToBack).value());
    }

    /** The chain's result once it runs, retrying typed retryable failures for up to {@link #RECOVERY}. */
    private static ChainResult eventually(Supplier<ChainResult> chain) throws InterruptedException {
        long deadline = System.nanoTime() + RECOVERY.toNanos();
        while (true) {
            try {
                return chain.get();
            } catch (ChainException e) {
                if (!e.isRetryable() || System.nanoTime() > deadline) {
                    throw e;
                }
                Thread.sleep(500);
            }
        }
    }
}
