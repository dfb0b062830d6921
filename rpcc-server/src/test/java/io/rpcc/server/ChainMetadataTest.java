package io.rpcc.server;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

import io.rpcc.client.ChainCall;
import io.rpcc.client.ReplySet;
import io.rpcc.client.RpccClient;
import io.rpcc.core.BranchId;
import io.rpcc.core.ChainContext;
import io.rpcc.core.Metadata;
import io.rpcc.core.StaticRoute;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The chain header's metadata and branch id reach every hop as the originator set them, in chain and
 * interactive mode; results and replies reach the originator through the header's reply-to address.
 */
class ChainMetadataTest {
    static final byte[] TRACE = {0, 1, -2, 127, -128};
    static final StaticRoute ROUTE = StaticRoute.of(StaticRoute.hop("s1", "see"), StaticRoute.hop("s2", "see"),
            StaticRoute.hop("s3", "see"));

    static Cluster cluster;
    static RpccClient client;
    static final Map<String, Metadata> seen = new ConcurrentHashMap<>();
    static final Map<String, BranchId> branches = new ConcurrentHashMap<>();

    @BeforeAll
    static void start() {
        cluster = new Cluster();
        for (String name : List.of("s1", "s2", "s3")) {
            cluster.server(name, b -> b.service("see", p -> {
                ChainContext ctx = ChainContext.current();
                seen.put(ctx.node(), ctx.metadata());
                branches.put(ctx.node(), ctx.branch());
                ctx.preturn(ctx.node());
                return p;
            }));
        }
        cluster.server("proxy", b -> b.actAsChainingProxy());
        cluster.server("p1", b -> b.chainingProxy("proxy").service("see", p -> {
            seen.put(ChainContext.current().node(), ChainContext.current().metadata());
            return p;
        }));
        client = cluster.client();
    }

    @AfterAll
    static void stop() throws Exception {
        cluster.close();
    }

    @BeforeEach
    void clear() {
        seen.clear();
        branches.clear();
    }

    @ParameterizedTest(name = "interactive: {0}")
    @ValueSource(booleans = {false, true})
    void metadataReachesTheThirdHopUnchanged(boolean interactive) {
        ChainCall call = ChainCall.along(ROUTE, "x").metadata("tenant", "acme").metadata("trace-bin", TRACE)
                .interactive(interactive);
        assertEquals("x", client.runChain(call).value());
        Metadata expected = Metadata.empty().with("tenant", "acme").with("trace-bin", TRACE);
        assertEquals(Map.of("s1", expected, "s2", expected, "s3", expected), seen);
        assertArrayEquals(TRACE, seen.get("s3").getBytes("trace-bin"));
        assertEquals(Map.of("s1", BranchId.root(), "s2", BranchId.root(), "s3", BranchId.root()), branches);
    }

    @Test
    void metadataPassesThroughAChainingProxy() {
        StaticRoute viaProxy = StaticRoute.of(StaticRoute.hop("p1", "see"), StaticRoute.hop("s2", "see"),
                StaticRoute.hop("s3", "see"));
        client.runChain(ChainCall.along(viaProxy, "x").metadata("tenant", "acme"));
        Metadata expected = Metadata.empty().with("tenant", "acme");
        assertEquals(Map.of("p1", expected, "s2", expected, "s3", expected), seen);
    }

    @ParameterizedTest(name = "interactive: {0}")
    @ValueSource(booleans = {false, true})
    void aChainWithoutMetadataHasEmptyMetadata(boolean interactive) {
        client.runChain(ChainCall.along(ROUTE, "x").interactive(interactive));
        assertEquals(Map.of("s1", Metadata.empty(), "s2", Metadata.empty(), "s3", Metadata.empty()), seen);
    }

    @ParameterizedTest(name = "interactive: {0}")
    @ValueSource(booleans = {false, true})
    void repliesAndResultReachTheReplyToNode(boolean interactive) throws Exception {
        ReplySet<String> replies = client.startChainWithReplies(ChainCall.along(ROUTE, "r").interactive(interactive)
                .timeout(Duration.ofSeconds(20)), String.class);
        assertEquals(List.of("s1", "s2", "s3"), replies.stream().sorted().toList());
        assertEquals("r", replies.result().join().value());
    }
}
