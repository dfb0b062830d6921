package io.rpcc.testkit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.rpcc.client.ChainCall;
import io.rpcc.client.RpccClient;
import io.rpcc.client.ReplySet;
import io.rpcc.client.StateFallback;
import io.rpcc.core.ChainContext;
import io.rpcc.core.ChainException;
import io.rpcc.core.ChainResult;
import io.rpcc.core.ChainState;
import io.rpcc.core.ChainingFunctionSource;
import io.rpcc.core.DeadlineExceededException;
import io.rpcc.core.HopTiming;
import io.rpcc.core.StateChoice;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The adaptive state fall-back on figure 10's setting (client in Redmond, two servers in Mountain
 * View, 32 ms and 6.3 MB/s between them): a chain whose state is far larger than the link's
 * latency × bandwidth keeps it at the client and runs its chaining function there; a small one
 * carries it. Either way the result, path and timings are those of the chain.
 */
class WanStateFallbackTest {
    @RegisterExtension
    static final WanCluster wan = WanCluster.of(WanTopology.paperFigure7());
    static RpccClient client;

    /** At 'a': on to {@code target} at 'b' with the result and the state's size. */
    private static ChainingFunctionSource toB(String target) {
        return ChainingFunctionSource.java("""
                import io.rpcc.core.*;
                public class ToB implements ChainingFunction {
                    public NextHop apply(ChainState state, Object result) {
                        byte[] blob = (byte[]) state.get("blob");
                        return NextHop.callThenEnd("b", "%s", result + ":" + blob.length);
                    }
                }
                """.formatted(target));
    }

    @BeforeAll
    static void start() {
        wan.server("a", WanTopology.MOUNTAIN_VIEW, b -> b.service("echo", p -> p).service("talk", p -> {
            ChainContext.current().preturn("from a");
            return p;
        }));
        wan.server("b", WanTopology.MOUNTAIN_VIEW, b -> b.service("echo", p -> "b(" + p + ")").service("talk", p -> {
            ChainContext.current().preturn("from b");
            return "b(" + p + ")";
        }));
        client = wan.client("client", WanTopology.REDMOND, c -> c.stateFallback(StateFallback.ADAPTIVE));
    }

    private static ChainResult run(int bytes, String target) {
        return client.runChain(ChainCall.to("a", "echo").params("x").chainingFunction(toB(target))
                .state(ChainState.of("blob", new byte[bytes])));
    }

    /** Runs chains with a large state until the client has measured its link's throughput (the first carries it). */
    private static void measureThroughput() {
        for (int i = 0; i < 20; i++) {
            ChainResult r = run(512 * 1024, "echo");
            if (!r.stateChoices().getFirst().reason().contains("no throughput")) {
                return;
            }
        }
        throw new AssertionError("the client measured no throughput to 'a' after 20 chains of 512 KB");
    }

    @Test
    void aLargeStateStaysAtTheClientAndASmallOneIsCarried() {
        measureThroughput();

        ChainResult large = run(1024 * 1024, "echo");
        assertEquals("b(x:1048576)", large.value());
        assertEquals(List.of("a", "b"), large.path());
        StateChoice kept = large.stateChoices().getFirst();
        assertEquals(1, large.stateChoices().size());
        assertFalse(kept.carried(), kept.toString());
        assertEquals(1, kept.hop());
        assertEquals("a", kept.server());
        assertTrue(kept.stateBytes() >= 1024 * 1024, kept.toString());
        assertTrue(kept.carryNanos() > kept.fallbackNanos(), kept.toString());
        assertTrue(large.interactive(), "the chaining function ran at the client");
        assertEquals(List.of(1, 2), large.timings().stream().map(HopTiming::hop).toList());
        assertEquals("client", large.timings().getFirst().chainingHost());
        assertTrue(large.profile().toString().contains("kept at the originator"), large.profile().toString());

        ChainResult small = run(1024, "echo");
        assertEquals("b(x:1024)", small.value());
        assertEquals(List.of("a", "b"), small.path());
        StateChoice carried = small.stateChoices().getFirst();
        assertTrue(carried.carried(), carried.toString());
        assertTrue(carried.carryNanos() <= carried.fallbackNanos(), carried.toString());
        assertFalse(small.interactive(), "every chaining function ran at the servers");
        assertEquals("a", small.timings().getFirst().chainingHost());
        assertEquals(List.of(1, 2), small.timings().stream().map(HopTiming::hop).toList());
    }

    @Test
    void aLargeStateIsCountedOnlyUpToTheBreakEvenSize() {
        measureThroughput();
        ChainingFunctionSource textToB = ChainingFunctionSource.java("""
                import io.rpcc.core.*;
                public class TextToB implements ChainingFunction {
                    public NextHop apply(ChainState state, Object result) {
                        return NextHop.callThenEnd("b", "echo", result + ":" + ((String) state.get("text")).length());
                    }
                }
                """);
        // 4 MB of text, written by the serializer (not a byte array, whose size is its length)
        ChainResult r = client.runChain(ChainCall.to("a", "echo").params("x").chainingFunction(textToB)
                .state(ChainState.of("text", "t".repeat(4 * 1024 * 1024))));
        assertEquals("b(x:4194304)", r.value());
        StateChoice kept = r.stateChoices().getFirst();
        assertFalse(kept.carried(), kept.toString());
        // the counting stopped past the break-even size (about 200 KB here), far short of the 4 MB
        assertTrue(kept.stateBytes() < 1024 * 1024, kept.toString());
        assertTrue(kept.reason().startsWith("state over "), kept.toString());
        assertTrue(kept.carryNanos() > kept.fallbackNanos(), kept.toString());
    }

    @Test
    void aFailureAfterAFallBackNamesItsHop() {
        measureThroughput();
        ChainException e = assertThrows(ChainException.class, () -> run(1024 * 1024, "missing"));
        assertEquals("b", e.host());
        assertEquals(2, e.hop());
    }

    @Test
    void repliesOfEveryHopArriveAcrossAFallBack() {
        measureThroughput();
        ReplySet<String> replies = client.startChainWithReplies(ChainCall.to("a", "talk").params("x")
                .chainingFunction(toB("talk")).state(ChainState.of("blob", new byte[1024 * 1024])), String.class);
        List<String> all = replies.stream().sorted().toList(); // (the set ends after the result and every reply)
        assertEquals(List.of("from a", "from b"), all);
        ChainResult r = replies.result().join();
        assertEquals("b(x:1048576)", r.value());
        assertFalse(r.stateChoices().getFirst().carried(), r.stateChoices().toString());
    }

    @Test
    void theDeadlineCoversTheStepsAfterAFallBack() {
        measureThroughput();
        // the first step alone takes a round trip (32 ms): the second cannot end within 40 ms
        assertThrows(DeadlineExceededException.class, () -> client.runChain(ChainCall.to("a", "echo").params("x")
                .chainingFunction(toB("echo")).state(ChainState.of("blob", new byte[1024 * 1024]))
                .deadline(Duration.ofMillis(40))));
    }

    @Test
    void neverAndAlwaysOverrideTheClientsDefault() {
        measureThroughput();
        ChainResult carried = client.runChain(ChainCall.to("a", "echo").params("x").chainingFunction(toB("echo"))
                .state(ChainState.of("blob", new byte[1024 * 1024])).stateFallback(StateFallback.NEVER));
        assertEquals("b(x:1048576)", carried.value());
        assertTrue(carried.stateChoices().isEmpty());
        assertEquals("a", carried.timings().getFirst().chainingHost());
        ChainResult kept = client.runChain(ChainCall.to("a", "echo").params("x").chainingFunction(toB("echo"))
                .state(ChainState.of("blob", new byte[10])).stateFallback(StateFallback.ALWAYS));
        assertEquals("b(x:10)", kept.value());
        assertEquals("client", kept.timings().getFirst().chainingHost());
    }
}
