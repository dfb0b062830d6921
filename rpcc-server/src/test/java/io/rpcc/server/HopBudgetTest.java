package io.rpcc.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.rpcc.client.ChainCall;
import io.rpcc.client.RpccClient;
import io.rpcc.core.ChainResult;
import io.rpcc.core.ChainState;
import io.rpcc.core.ChainingFunctionSource;
import io.rpcc.core.HopLimitExceededException;
import io.rpcc.core.SubChain;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The hop limit bounds a chain's total work, across every branch of its splits and every sub-chain
 * (issue 26): at a split the hops the chain has left are shared among its branches, and the chain
 * goes on after the merge with what they left unused. The attack, a chain that splits 8 ways at every
 * level, ends with {@link HopLimitExceededException} having run no more hops than its limit (counted
 * where the service functions run), and the servers go on serving.
 */
@Timeout(value = 2, unit = TimeUnit.MINUTES)
class HopBudgetTest {
    /** Splits 8 ways ("fan" in the state) at every level while "depth" lasts; the default merge. */
    static final ChainingFunctionSource BOMB = ChainingFunctionSource.java("""
            import io.rpcc.core.*;
            import java.util.ArrayList;
            import java.util.List;
            public class Bomb implements ChainingFunction {
                public NextHop apply(ChainState state, Object result) {
                    int depth = state.get("depth", Integer.class);
                    if (depth == 0) return NextHop.end(1);
                    List<NextHop.Call> calls = new ArrayList<>();
                    for (int i = 0; i < state.get("fan", Integer.class); i++) {
                        calls.add(NextHop.call(i % 2 == 0 ? "s1" : "s2", "count", i, state.with("depth", depth - 1)));
                    }
                    return NextHop.split(calls);
                }
            }
            """);

    /**
     * Splits ("split" in the state, its branches each one hop) and merges with itself, then calls
     * "count" at s1, s2, s1 ... until "then" hops after the merge ran (forever if "then" is -1).
     */
    static final ChainingFunctionSource SPLIT_THEN_WALK = ChainingFunctionSource.java("""
            import io.rpcc.core.*;
            import java.util.ArrayList;
            import java.util.List;
            public class SplitThenWalk implements ChainingFunction {
                public NextHop apply(ChainState state, Object result) {
                    String step = state.get("step", String.class);
                    if (step.equals("split")) {
                        List<NextHop.Call> calls = new ArrayList<>();
                        for (int i = 0; i < state.get("split", Integer.class); i++) {
                            calls.add(NextHop.callThenEnd(i % 2 == 0 ? "s1" : "s2", "count", i));
                        }
                        return NextHop.split(calls).mergeAt(null, ChainingFunctionSource.SAME, state.with("step", "walk"));
                    }
                    int walked = state.get("walked", Integer.class);
                    if (walked == state.get("then", Integer.class)) return NextHop.end("walked " + walked);
                    return NextHop.call(walked % 2 == 0 ? "s1" : "s2", "count", walked,
                            state.with("step", "walk").with("walked", walked + 1));
                }
            }
            """);

    /** Calls "count" at s2 until "left" reaches 0, then ends (a sub-chain of "left" hops more). */
    static final ChainingFunctionSource WALK = ChainingFunctionSource.java("""
            import io.rpcc.core.*;
            public class Walk implements ChainingFunction {
                public NextHop apply(ChainState state, Object result) {
                    int left = state.get("left", Integer.class);
                    if (left == 0) return NextHop.end("sub done");
                    return NextHop.call("s2", "count", left, state.with("left", left - 1));
                }
            }
            """);

    /** Calls "count" at s1 forever. */
    static final ChainingFunctionSource FOREVER = ChainingFunctionSource.java("""
            import io.rpcc.core.*;
            public class Forever implements ChainingFunction {
                public NextHop apply(ChainState state, Object result) {
                    return NextHop.call("s1", "count", result, state);
                }
            }
            """);

    static final AtomicInteger hops = new AtomicInteger();
    static Cluster cluster;
    static RpccClient client;

    @BeforeAll
    static void start() {
        cluster = new Cluster();
        for (String name : List.of("s1", "s2")) {
            cluster.server(name, b -> b
                    .service("count", p -> {
                        hops.incrementAndGet();
                        return p;
                    })
                    // starts a sub-chain of 5 hops at s2; the parent then goes on at s1 forever
                    .service("sub", p -> {
                        hops.incrementAndGet();
                        return SubChain.to("s2", "count").params(p).chainingFunction(WALK)
                                .state(ChainState.of("left", 4)).composition(false);
                    })
                    // starts a sub-chain that splits 8 ways at every level
                    .service("subBomb", p -> {
                        hops.incrementAndGet();
                        return SubChain.to("s2", "count").params(p).chainingFunction(BOMB)
                                .state(ChainState.of("depth", 4, "fan", 8));
                    }));
        }
        client = cluster.client(b -> b.timeout(Duration.ofSeconds(60)));
    }

    @AfterAll
    static void stop() throws Exception {
        cluster.close();
    }

    @BeforeEach
    void reset() {
        hops.set(0);
    }

    @Test
    void aChainThatSplitsEightWaysAtEveryLevelRunsAtMostItsHopLimitInAll() {
        // unbounded, this is 1 + 8 + 64 + 512 + 4096 = 4681 hops, each path only 5 long
        HopLimitExceededException e = assertThrows(HopLimitExceededException.class, () -> client.runChain(
                ChainCall.to("s1", "count").params(0).chainingFunction(BOMB)
                        .state(ChainState.of("depth", 4, "fan", 8)).maxHops(200)));
        assertTrue(e.remoteMessage().contains("hop limit of"), e.remoteMessage());
        assertTrue(e.hop() >= 1 && e.hop() <= 200, "names the hop: " + e.hop());
        assertTrue(hops.get() <= 200, hops.get() + " hops ran under a hop limit of 200");
        System.out.println("8-way split bomb, maxHops 200: " + hops.get() + " hops ran, failed at hop " + e.hop()
                + " at " + e.host() + ": " + e.remoteMessage());

        hops.set(0); // the servers go on serving
        assertEquals("walked 3", client.runChain(ChainCall.to("s1", "count").params(0).chainingFunction(SPLIT_THEN_WALK)
                .state(ChainState.of("step", "split", "split", 2, "walked", 0, "then", 3))).value());
        assertEquals(1 + 2 + 3, hops.get());
    }

    @Test
    void aSplitWithinItsShareWorksAndTheChainGoesOnWithWhatItsBranchesLeft() {
        ChainResult r = client.runChain(ChainCall.to("s1", "count").params(0).chainingFunction(SPLIT_THEN_WALK)
                .state(ChainState.of("step", "split", "split", 4, "walked", 0, "then", 5)).maxHops(20));
        assertEquals("walked 5", r.value());
        assertEquals(1 + 4 + 5, hops.get());

        // 12 hops: hop 1 splits 4 ways, sharing the 11 left (3, 3, 3, 2); each branch runs one hop and
        // leaves the rest (2 + 2 + 2 + 1); the chain goes on after the merge with those 7, and no more
        hops.set(0);
        HopLimitExceededException e = assertThrows(HopLimitExceededException.class, () -> client.runChain(
                ChainCall.to("s1", "count").params(0).chainingFunction(SPLIT_THEN_WALK)
                        .state(ChainState.of("step", "split", "split", 4, "walked", 0, "then", -1)).maxHops(12)));
        assertEquals(12, hops.get());
        assertEquals(9, e.hop(), "the merge is at hop 2 (no hop of its own), then 7 more: " + e.remoteMessage());

        // a split into more branches than the chain has hops left is refused
        hops.set(0);
        HopLimitExceededException refused = assertThrows(HopLimitExceededException.class, () -> client.runChain(
                ChainCall.to("s1", "count").params(0).chainingFunction(SPLIT_THEN_WALK)
                        .state(ChainState.of("step", "split", "split", 4, "walked", 0, "then", 0)).maxHops(4)));
        assertEquals(1, refused.hop());
        assertTrue(refused.remoteMessage().contains("cannot be shared among 4 branches"), refused.remoteMessage());
        assertEquals(1, hops.get());
    }

    @Test
    void interactiveModeSharesTheHopsTheSameWay() {
        HopLimitExceededException e = assertThrows(HopLimitExceededException.class, () -> client.runChain(
                ChainCall.to("s1", "count").params(0).chainingFunction(SPLIT_THEN_WALK)
                        .state(ChainState.of("step", "split", "split", 4, "walked", 0, "then", -1)).maxHops(12)
                        .interactive(true)));
        assertEquals(12, hops.get());
        assertEquals(9, e.hop(), e.remoteMessage());

        hops.set(0);
        HopLimitExceededException bomb = assertThrows(HopLimitExceededException.class, () -> client.runChain(
                ChainCall.to("s1", "count").params(0).chainingFunction(BOMB)
                        .state(ChainState.of("depth", 4, "fan", 8)).maxHops(200).interactive(true)));
        assertTrue(hops.get() <= 200, hops.get() + " hops ran under a hop limit of 200");
        assertTrue(bomb.remoteMessage().contains("hop limit of"), bomb.remoteMessage());
    }

    @Test
    void aSubChainsHopsCountAgainstItsParentsLimit() {
        // hop 1 starts a sub-chain of hops 2..6; the parent resumes after hop 6 with 4 hops left
        HopLimitExceededException e = assertThrows(HopLimitExceededException.class, () -> client.runChain(
                ChainCall.to("s1", "sub").params(0).chainingFunction(FOREVER).maxHops(10)));
        assertEquals(10, e.hop());
        assertEquals(10, hops.get());

        // a sub-chain that splits 8 ways at every level shares its parent's limit
        hops.set(0);
        HopLimitExceededException bomb = assertThrows(HopLimitExceededException.class, () -> client.runChain(
                ChainCall.to("s1", "subBomb").params(0).chainingFunction(FOREVER).maxHops(200)));
        assertTrue(hops.get() <= 200, hops.get() + " hops ran under a hop limit of 200");
        assertTrue(bomb.remoteMessage().contains("hop limit of"), bomb.remoteMessage());
    }
}
