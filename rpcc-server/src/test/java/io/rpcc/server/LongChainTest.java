package io.rpcc.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.rpcc.client.ChainCall;
import io.rpcc.client.RpccClient;
import io.rpcc.core.ChainResult;
import io.rpcc.core.ChainState;
import io.rpcc.core.ChainingFunctionSource;
import io.rpcc.core.HopPath;
import io.rpcc.core.HopTiming;
import io.rpcc.core.SandboxLimits;
import io.rpcc.core.ServiceFunctionException;
import io.rpcc.core.StaticRoute;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
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
    /** Walks "left" hops between s1 and s2, then (if "split") splits two ways, each branch walking "branch" hops. */
    static final ChainingFunctionSource WALK_THEN_SPLIT = ChainingFunctionSource.java("""
            import io.rpcc.core.*;
            import java.util.List;
            public class WalkThenSplit implements ChainingFunction {
                public NextHop apply(ChainState state, Object result) {
                    int left = state.get("left", Integer.class);
                    if (left > 0) {
                        return NextHop.call(left % 2 == 0 ? "s1" : "s2", "count", result, state.with("left", left - 1));
                    }
                    if (state.contains("branch")) {
                        int branch = state.get("branch", Integer.class);
                        return NextHop.split(List.of(
                                NextHop.call("s3", "count", 1, ChainState.of("left", branch)),
                                NextHop.call("s3", "count", 2, ChainState.of("left", branch))));
                    }
                    return NextHop.end(result);
                }
            }
            """);
    static final AtomicInteger counted = new AtomicInteger();
    static Cluster cluster;
    static RpccClient client;

    @BeforeAll
    static void start() {
        cluster = new Cluster();
        for (String name : SERVERS) {
            // a generous sandbox: on a loaded machine the route's chaining function, run hundreds of times
            // while the JIT warms up, can pass the default 300 ms of CPU time in one invocation
            cluster.server(name, b -> b
                    .sandbox(new SandboxLimits(Duration.ofSeconds(30), SandboxLimits.DEFAULT.allocatedBytes(),
                            Duration.ofSeconds(60)))
                    .service("echo", p -> p)
                    .service("count", p -> {
                        counted.incrementAndGet();
                        return p;
                    })
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
        assertEquals(HopPath.MAX_TIMINGS, timings.size(), () -> "interactive " + r.interactive() + ", elapsed " + r.elapsed() + ": " + timings.stream().map(t -> t.hop() + "@" + t.host() + ":"
                + t.serviceFunction()).toList().toString());
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

    @Test
    void aSplitOfALongChainCountsEveryHopOfItsBranchesInItsBoundedPath() {
        for (boolean interactive : new boolean[] {false, true}) {
            // short: the path is not bounded, and names one server per service function run
            counted.set(0);
            ChainResult shortChain = client.runChain(ChainCall.to("s1", "count").params(0).chainingFunction(WALK_THEN_SPLIT)
                    .state(ChainState.of("left", 3, "branch", 2)).interactive(interactive));
            assertEquals(counted.get(), shortChain.path().size(), shortChain.path().toString());
            // long before the split and in its branches: bounded, and still counting every one
            counted.set(0);
            ChainResult longChain = client.runChain(ChainCall.to("s1", "count").params(0).chainingFunction(WALK_THEN_SPLIT)
                    .state(ChainState.of("left", 40, "branch", 40)).interactive(interactive));
            assertEquals(1 + 40 + 2 * 41, counted.get());
            assertEquals(counted.get(), HopPath.visited(longChain.path()), "interactive " + interactive + ": "
                    + longChain.path());
            assertTrue(longChain.path().size() <= HopPath.MAX_ENTRIES, longChain.path().toString());
            assertEquals("s2", longChain.path().getLast(), "a branch's last hop (left 1: s2)");
            assertEquals("s1", longChain.path().getFirst());
            assertTrue(longChain.timings().size() <= HopPath.MAX_TIMINGS, longChain.timings().toString());
        }
    }
}
