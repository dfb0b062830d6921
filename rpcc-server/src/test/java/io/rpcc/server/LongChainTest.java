package io.rpcc.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.rpcc.client.ChainCall;
import io.rpcc.client.RpccClient;
import io.rpcc.core.ChainResult;
import io.rpcc.core.HopPath;
import io.rpcc.core.HopTiming;
import io.rpcc.core.ServiceFunctionException;
import io.rpcc.core.StaticRoute;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A long chain's path record is bounded (issue 27): a chain of hundreds of hops over three real
 * servers ends with a path of its first and last {@link HopPath#KEPT_AT_EACH_END} servers and one
 * entry saying how many it left out, and the timings of its first and last hops; a failure at a late
 * hop still names that hop, its server, and the path up to it. (That each request stays the same
 * size once the path is bounded is {@code FrameCodecTest}'s: it measures the encoded frames.)
 */
@Timeout(value = 3, unit = TimeUnit.MINUTES)
class LongChainTest {
    static final String[] SERVERS = {"s1", "s2", "s3"};
    static Cluster cluster;
    static RpccClient client;

    @BeforeAll
    static void start() {
        cluster = new Cluster();
        for (String name : SERVERS) {
            cluster.server(name, b -> b
                    .service("echo", p -> p)
                    .service("boom", p -> {
                        throw new IllegalStateException("boom at the end of a long chain");
                    }));
        }
        client = cluster.client(b -> b.timeout(Duration.ofSeconds(120)));
    }

    @AfterAll
    static void stop() throws Exception {
        cluster.close();
    }

    private static StaticRoute route(int hops, String lastFunction) {
        List<StaticRoute.Hop> route = new ArrayList<>();
        for (int h = 1; h <= hops; h++) {
            route.add(StaticRoute.hop(SERVERS[h % SERVERS.length], h == hops ? lastFunction : "echo"));
        }
        return StaticRoute.of(route);
    }

    @Test
    void aThreeHundredHopChainEndsWithABoundedPathThatCountsEveryHop() {
        int hops = 300;
        ChainResult r = client.runChain(ChainCall.along(route(hops, "echo"), "payload"));
        assertEquals("payload", r.value());
        assertEquals(hops, r.hops(), "the elided hops are counted");
        List<String> path = r.path();
        assertEquals(HopPath.MAX_ENTRIES, path.size(), path.toString());
        assertEquals(List.of("s2", "s3", "s1"), path.subList(0, 3), "the first hops are named");
        assertEquals("… " + (hops - 2 * HopPath.KEPT_AT_EACH_END) + " hops …", path.get(HopPath.KEPT_AT_EACH_END));
        assertEquals(hops - 2 * HopPath.KEPT_AT_EACH_END, HopPath.elided(path.get(HopPath.KEPT_AT_EACH_END)));
        assertEquals(SERVERS[hops % SERVERS.length], path.getLast(), "the last hop is named");
        List<HopTiming> timings = r.timings();
        assertEquals(HopPath.MAX_TIMINGS, timings.size());
        assertEquals(1, timings.getFirst().hop());
        assertEquals(HopPath.KEPT_AT_EACH_END, timings.get(HopPath.KEPT_AT_EACH_END - 1).hop());
        assertEquals(hops - HopPath.KEPT_AT_EACH_END + 1, timings.get(HopPath.KEPT_AT_EACH_END).hop());
        assertEquals(hops, timings.getLast().hop());
    }

    @Test
    void aFailureAtHopThreeHundredAndTwentyNamesTheHopItsServerAndThePathAroundIt() {
        int hops = 320;
        ServiceFunctionException e = assertThrows(ServiceFunctionException.class,
                () -> client.runChain(ChainCall.along(route(hops, "boom"), "payload")));
        String failing = SERVERS[hops % SERVERS.length];
        assertEquals(hops, e.hop());
        assertEquals(failing, e.host());
        assertEquals(failing, e.path().getLast());
        assertEquals(SERVERS[(hops - 1) % SERVERS.length], e.path().get(e.path().size() - 2), "the hop before it");
        assertEquals(HopPath.MAX_ENTRIES, e.path().size());
        assertEquals(hops, HopPath.visited(e.path()));
        assertTrue(e.getMessage().contains("hop " + hops + " at '" + failing + "'"), e.getMessage());
        assertTrue(e.getMessage().contains("boom at the end of a long chain"), e.getMessage());
        assertTrue(e.getMessage().contains("(" + (hops - 10) + " more)"), "the message counts the hops it leaves out: "
                + e.getMessage());
        assertEquals(hops - 1, e.timings().getLast().hop(), "the timings up to the hop before it");
    }
}
