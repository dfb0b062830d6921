package com.acme.svc;

import static org.junit.jupiter.api.Assertions.assertTrue;

import io.rpcc.client.Heartbeats;
import io.rpcc.client.RpccClient;
import io.rpcc.testcontainers.RpccNodeContainer;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.testcontainers.containers.Network;
import org.testcontainers.images.builder.Transferable;
import org.testcontainers.junit.jupiter.Container;
import org.testcontainers.junit.jupiter.Testcontainers;

/**
 * The service jar in three node containers of the project's image, as a user's integration test
 * runs it: {@code withServices(jar)} copies the packaged jar into each node's services directory and
 * {@code withServiceClasses} names the classes implementing its service interfaces. A client in this JVM
 * runs the checkout chain node-a -> node-b -> node-c; each node compiles the Java chaining function, which
 * uses the jar's types, and partial replies come straight back from each container. The same checkout
 * runs as a sequential chain of typed calls, an upload streams into node-c, and node-b, whose stream
 * budget is set to 256 KiB ({@code RPCC_STREAMS_BUFFER_BYTES}), refuses a second stream while a first
 * holds it and goes on serving. An HTTP/JSON service in this JVM ({@link LegacyPricing}, listening on all
 * interfaces) is wrapped by node-a from its configuration alone ({@code RPCC_LEGACY_HTTP_LEGACY_QUOTE}, its token in
 * a file copied into the container as a mounted secret would be): node-a reaches it at
 * {@value RpccNodeContainer#HOST_ALIAS}, Docker's host gateway, and it sees the chain's originator and that token.
 * Atomic order chains ({@link AtomicOrders}) reserve stock at node-a and book the payment at node-c in one
 * transaction over the jar's own transactional state.
 */
@ExtendWith(NodeImageRequirement.class)
@Testcontainers(parallel = true)
class NodeContainersServiceJarIT {
    static final Network network = Network.newNetwork();
    static final LegacyPricing pricing = LegacyPricing.start("0.0.0.0"); // the containers reach it through the host gateway
    static final String PRICING_TOKEN = "node-a-token";
    @Container
    static final RpccNodeContainer a = node("node-a")
            .withNodeProperty("rpcc.legacy.http." + LegacyPricing.FUNCTION, "POST " + pricing.url(RpccNodeContainer.HOST_ALIAS)
                    + "/quotes/{id} result=com.acme.svc.Quote token-file=/run/secrets/acme-pricing-token timeout=10s")
            .withCopyToContainer(Transferable.of(PRICING_TOKEN + "\n"), "/run/secrets/acme-pricing-token");
    @Container
    static final RpccNodeContainer b = node("node-b").withNodeProperty("rpcc.transport", "epoll") // a and c: NIO
            .withNodeProperty("rpcc.streams.buffer-bytes", "256KiB");
    @Container
    static final RpccNodeContainer c = node("node-c").withNodeProperty("rpcc.streams.window-bytes", "2MiB");
    static RpccClient client;

    static {
        for (RpccNodeContainer n : List.of(a, b, c)) {
            n.withPeers(a, b, c);
        }
    }

    private static RpccNodeContainer node(String name) {
        return new RpccNodeContainer(NodeImageRequirement.IMAGE, name).withNetwork(network)
                .withServices(Checkouts.serviceJar()).withServiceClasses(OrderDesk.class.getName(), Store.class.getName(),
                        Stockroom.class.getName(), Ledger.class.getName())
                .withNodeProperty("rpcc.shutdown.grace", "2s");
    }

    @BeforeAll
    static void startClient() {
        client = client("shop");
    }

    private static RpccClient client(String name) {
        // A first connection to a container's mapped port took 6-10 s on a loaded machine (load 15-20 on 2 cores): with the
        // default heartbeats (broken after 6 s) a chain was declared broken before its REQUEST had left
        return RpccNodeContainer.clientBuilder(a, b, c).name(name).types(Checkouts.types()).timeout(Duration.ofSeconds(60))
                .connectTimeout(Duration.ofSeconds(20)).handshakeTimeout(Duration.ofSeconds(30))
                .heartbeats(Heartbeats.every(Duration.ofSeconds(3), Duration.ofSeconds(30))).build().start();
    }

    @AfterAll
    static void stopClient() {
        if (client != null) {
            client.close();
        }
        pricing.close();
        for (RpccNodeContainer n : List.of(a, b, c)) {
            System.out.println("== logs of " + n.getNodeName() + "\n" + n.getLogs());
        }
    }

    @Test
    void aChainingFunctionUsingTheServiceJarsTypesRunsAcrossThreeContainersWithPartialReplies() {
        Checkouts.runAndCheck(client, "node-a", "node-b", "node-c");
        assertTrue(b.getLogs().contains("(transport epoll)"), "node-b runs on epoll in its container");
        assertTrue(a.getLogs().contains("(transport nio)"), "node-a runs on NIO");
    }

    @Test
    void anAtomicOrderOverTheServiceJarsTransactionalStateCommitsAtTwoContainersOrAtNeither() throws Exception {
        AtomicOrders.commitsAtBoth(client, "node-a", "node-c", "T-1");
        AtomicOrders.aRefusedPaymentLeavesTheStockUnchanged(client, "node-a", "node-c", "T-2");
        try (RpccClient other = client("shop-2")) {
            AtomicOrders.conflictingOrdersFromTwoClientsAllEnd(client, other, "node-a", "node-c", 6);
        }
    }

    @Test
    void aStaticRouteRunsAcrossTwoContainersWithTheServiceJarsTypes() {
        Checkouts.runStaticRouteAndCheck(client, "node-c", "node-b");
    }

    @Test
    void aSequentialChainOfTypedCallsRunsServerToServerAcrossThreeContainers() {
        Checkouts.runSequentialAndCheck(client, "node-a", "node-b", "node-c");
    }

    @Test
    void anUploadStreamsIntoAContainersStreamingServiceFunction() {
        Checkouts.uploadAndCheck(client, "node-c", 8);
    }

    @Test
    void aContainerWrapsAnHttpServiceOfTheTestJvmByConfigurationAndPassesTheOriginatorOn() {
        pricing.checkAWrappedCallSeesTheOriginatorsIdentity(client, "node-b", "node-a", PRICING_TOKEN);
        assertTrue(a.getLogs().contains(LegacyPricing.FUNCTION + " (POST " + pricing.url(RpccNodeContainer.HOST_ALIAS)
                + "/quotes/{id} -> com.acme.svc.Quote)"), "node-a's start-up line names the endpoint it wraps");
    }

    @Test
    void aContainerRefusesAStreamOverItsConfiguredBudgetAndGoesOnServing() throws Exception {
        Checkouts.aStreamOverTheNodesBudgetIsRefusedAndTheNodeGoesOnServing(client, "node-b", b::getMetrics);
    }
}
