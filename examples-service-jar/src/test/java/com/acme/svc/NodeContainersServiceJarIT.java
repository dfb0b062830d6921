package com.acme.svc;

import static org.junit.jupiter.api.Assertions.assertTrue;

import io.rpcc.client.RpccClient;
import io.rpcc.testcontainers.RpccNodeContainer;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.testcontainers.containers.Network;
import org.testcontainers.junit.jupiter.Container;
import org.testcontainers.junit.jupiter.Testcontainers;

/**
 * The service jar in three node containers of the project's image, as a user's integration test
 * runs it: {@code withServices(jar)} copies the packaged jar into each node's services directory and
 * {@code withServiceClasses} names the {@code @ServiceMethod} class. A client in this JVM runs the
 * checkout chain node-a -> node-b -> node-c; each node compiles the Java chaining function, which uses
 * the jar's types, and partial replies come straight back from each container.
 */
@ExtendWith(NodeImageRequirement.class)
@Testcontainers(parallel = true)
class NodeContainersServiceJarIT {
    static final Network network = Network.newNetwork();
    @Container
    static final RpccNodeContainer a = node("node-a");
    @Container
    static final RpccNodeContainer b = node("node-b").withNodeProperty("rpcc.transport", "epoll"); // a and c: NIO
    @Container
    static final RpccNodeContainer c = node("node-c");
    static RpccClient client;

    static {
        for (RpccNodeContainer n : List.of(a, b, c)) {
            n.withPeers(a, b, c);
        }
    }

    private static RpccNodeContainer node(String name) {
        return new RpccNodeContainer(NodeImageRequirement.IMAGE, name).withNetwork(network)
                .withServices(Checkouts.serviceJar()).withServiceClasses(OrderDesk.class.getName())
                .withNodeProperty("rpcc.shutdown.grace", "2s");
    }

    @BeforeAll
    static void startClient() {
        client = RpccNodeContainer.clientBuilder(a, b, c).types(Checkouts.types()).timeout(Duration.ofSeconds(60)).build().start();
    }

    @AfterAll
    static void stopClient() {
        if (client != null) {
            client.close();
        }
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
    void aStaticRouteRunsAcrossTwoContainersWithTheServiceJarsTypes() {
        Checkouts.runStaticRouteAndCheck(client, "node-c", "node-b");
    }
}
