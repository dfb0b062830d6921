package io.rpcc.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.rpcc.client.ChainCall;
import io.rpcc.client.ReplySet;
import io.rpcc.client.RpccClient;
import io.rpcc.core.ChainContext;
import io.rpcc.core.ChainException;
import io.rpcc.core.ChainResult;
import io.rpcc.core.SubChain;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.stream.IntStream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Partial replies of nested sub-chains (paper 7.1) on real nodes: by default they go to the
 * sub-chain's creator, whose {@code onReply} handler transforms, drops or passes them on to its own
 * originator; {@code repliesToOriginator()} sends them straight to the top-level originator. In every
 * case the originator's reply set gets exactly the replies passed on, in each hop's order, and ends
 * after all of them; a creator that is gone ends the chain with a typed error instead of a hang.
 * Composed sub-chains (the default) and returned ones behave alike: a composed sub-chain's replies go
 * to its creator although its result does not.
 */
@Timeout(value = 2, unit = TimeUnit.MINUTES)
class SubChainReplyTest {
    static Cluster cluster;
    static RpccClient client;
    static final Map<String, RpccServer> servers = new ConcurrentHashMap<>();
    static volatile CountDownLatch started = new CountDownLatch(1);
    static volatile CountDownLatch release = new CountDownLatch(1);

    /** Replies "r0".."r(n-1)" from its own thread and, in between, a "drop" (params n), then returns "done". */
    static Object burst(Object params) {
        ChainContext ctx = ChainContext.current();
        int n = (Integer) params;
        for (int i = 0; i < n; i++) {
            ctx.preturn("r" + i);
            if (i == n / 2) {
                ctx.preturn("drop");
            }
        }
        return "done@" + ctx.node();
    }

    /**
     * A's service: the sub-chain (at b) the params name, with a reply handler that tags or drops;
     * composed with the chain (the default) unless the params end with {@code ",returned"}.
     */
    static Object start(Object params) {
        ChainContext.current().preturn("own@a");
        String spec = (String) params;
        boolean returned = spec.endsWith(",returned");
        SubChain burst = SubChain.to("b", "burst").params(10).composition(!returned);
        return switch (spec.replace(",returned", "")) {
            case "via" -> burst.onReply((reply, hop, host, passOn) -> {
                if (!"drop".equals(reply)) {
                    passOn.accept("A:" + reply + "@" + host + "#" + hop);
                }
            });
            case "default" -> burst;
            case "straight" -> burst.onReply((reply, hop, host, passOn) -> passOn.accept("never")).repliesToOriginator();
            case "twice" -> burst.onReply((reply, hop, host, passOn) -> {
                passOn.accept(reply);
                passOn.accept(reply + "'");
            });
            case "nested" -> SubChain.to("b", "middle").params(returned).composition(!returned)
                    .onReply((reply, hop, host, passOn) -> passOn.accept("A:" + reply));
            case "throws" -> burst.onReply((reply, hop, host, passOn) -> {
                if ("drop".equals(reply)) {
                    throw new IllegalStateException("handler fails on " + reply);
                }
                passOn.accept(reply);
            });
            default -> throw new IllegalArgumentException((String) params);
        };
    }

    /** B's service of the nested case: replies, then its own sub-chain at c (returned if params), whose replies it tags. */
    static Object middle(Object params) {
        ChainContext.current().preturn("own@b");
        return SubChain.to("c", "burst").params(3).composition(!Boolean.TRUE.equals(params))
                .onReply((reply, hop, host, passOn) -> passOn.accept("B:" + reply));
    }

    @BeforeAll
    static void start() {
        cluster = new Cluster();
        for (String name : List.of("a", "b", "c")) {
            servers.put(name, cluster.server(name, b -> b
                    .service("start", SubChainReplyTest::start)
                    .service("middle", SubChainReplyTest::middle)
                    .service("burst", SubChainReplyTest::burst)
                    .service("late", p -> {
                        started.countDown();
                        release.await(30, TimeUnit.SECONDS);
                        ChainContext.current().preturn("late reply");
                        return "late result";
                    })));
        }
        client = cluster.client();
    }

    @AfterAll
    static void stop() throws Exception {
        cluster.close();
    }

    static List<String> collect(ReplySet<String> set) {
        List<String> got = new ArrayList<>();
        set.forEach(got::add);
        return got;
    }

    static List<String> tens(String prefix, String suffix) {
        return IntStream.range(0, 10).mapToObj(i -> prefix + "r" + i + suffix).toList();
    }

    @ParameterizedTest(name = "interactive={0}, {1}")
    @CsvSource({"false, via", "true, via", "false, 'via,returned'", "true, 'via,returned'"})
    void repliesGoThroughTheCreatorsHandlerWhichTransformsAndDrops(boolean interactive, String spec) {
        long lostBefore = servers.get("a").relayedRepliesLost();
        ReplySet<String> set = client.startChainWithReplies(ChainCall.to("a", "start").params(spec)
                .interactive(interactive), String.class);
        List<String> got = collect(set);
        assertEquals("done@b", set.result().join().value());
        List<String> fromB = got.stream().filter(r -> r.startsWith("A:")).toList();
        assertEquals(tens("A:", "@b#2"), fromB, "every reply of b's hop, transformed, in its order; the drop dropped");
        assertEquals(List.of("own@a"), got.stream().filter(r -> !r.startsWith("A:")).toList());
        assertEquals(0, set.arrivedAfterEnd());
        assertEquals(lostBefore, servers.get("a").relayedRepliesLost());
        assertFinished();
    }

    @Test
    void withoutAHandlerTheCreatorPassesEveryReplyOnUnchanged() {
        ReplySet<String> set = client.startChainWithReplies(ChainCall.to("a", "start").params("default"), String.class);
        List<String> got = collect(set);
        List<String> expected = new ArrayList<>(tens("", ""));
        expected.add(6, "drop");
        assertEquals(expected, got.stream().filter(r -> !r.equals("own@a")).toList());
        assertEquals(12, got.size());
        assertFinished();
    }

    @Test
    void aHandlerMayPassOnSeveralRepliesForOne() {
        ReplySet<String> set = client.startChainWithReplies(ChainCall.to("a", "start").params("twice"), String.class);
        List<String> got = collect(set);
        assertEquals(1 + 2 * 11, got.size(), got::toString);
        assertEquals(got.size(), set.received());
        assertFinished();
    }

    @Test
    void repliesToOriginatorSendsThemStraightThereAndNoHandlerSeesThem() {
        int relaysBefore = servers.get("a").replyRelays();
        ReplySet<String> set = client.startChainWithReplies(ChainCall.to("a", "start").params("straight"), String.class);
        List<String> got = collect(set);
        List<String> expected = new ArrayList<>(tens("", ""));
        expected.add(6, "drop");
        assertEquals(expected, got.stream().filter(r -> !r.equals("own@a")).toList());
        assertEquals(relaysBefore, servers.get("a").replyRelays(), "no relay at the creator");
        assertFinished();
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"nested", "nested,returned"})
    void nestedCreatorsEachHandleTheRepliesOfTheirSubChainInTurn(String spec) {
        // composed, c ends both sub-chains and sends the result; its replies still pass b's, then a's handler
        ReplySet<String> set = client.startChainWithReplies(ChainCall.to("a", "start").params(spec), String.class);
        List<String> got = collect(set);
        // c's replies pass b's handler, then a's; b's own reply passes a's only
        assertEquals(List.of("A:B:r0", "A:B:r1", "A:B:drop", "A:B:r2"),
                got.stream().filter(r -> r.startsWith("A:B:")).toList());
        assertEquals(List.of("A:own@b"), got.stream().filter(r -> r.startsWith("A:own")).toList());
        assertEquals(6, got.size(), got::toString);
        assertEquals("done@c", set.result().join().value());
        assertEquals(0, set.arrivedAfterEnd());
        assertFinished();
    }

    @Test
    void aReplyHandlerThatThrowsDropsThatReplyCountedAndTheChainGoesOn() {
        long before = servers.get("a").relayedRepliesLost();
        ReplySet<String> set = client.startChainWithReplies(ChainCall.to("a", "start").params("throws"), String.class);
        List<String> got = collect(set);
        assertEquals(tens("", ""), got.stream().filter(r -> !r.equals("own@a")).toList());
        assertEquals("done@b", set.result().join().value());
        assertEquals(before + 1, servers.get("a").relayedRepliesLost());
        assertFinished();
    }

    @Test
    void aCreatorThatIsGoneEndsTheChainWithATypedErrorNotAHang() throws Exception {
        started = new CountDownLatch(1);
        release = new CountDownLatch(1);
        RpccServer gone = cluster.server("gone", b -> b.service("start", p -> SubChain.to("b", "late")));
        ReplySet<String> set = client.startChainWithReplies(ChainCall.to("gone", "start").timeout(Duration.ofSeconds(60)),
                String.class);
        assertTrue(started.await(20, TimeUnit.SECONDS));
        gone.close(); // the creator, with the parked hop and the relay of b's replies, is gone
        release.countDown();
        assertTrue(set.whenDone().isDone() || set.awaitDone().isDone());
        assertTrue(set.isPartial() || set.result().isCompletedExceptionally());
        ChainException error = (ChainException) (set.error() != null ? set.error()
                : set.result().handle((r, e) -> e.getCause()).join());
        assertNotNull(error);
        assertEquals("b", error.host(), error::getMessage);
        assertTrue(error.getMessage().contains("gone"), error::getMessage);
        assertTrue(!set.timedOut(), "ended by credit, well before its 60 s timeout");
        assertEquals(0, set.arrivedAfterEnd());
    }

    static void assertFinished() {
        long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while ((inFlight() > 0 || client.chainsInFlight() > 0) && System.nanoTime() < until) {
            Thread.onSpinWait();
        }
        assertEquals(0, inFlight(), "no hop in flight");
        assertEquals(0, client.chainsInFlight(), "the chain finished at its originator (all credit home)");
        assertEquals(0, client.lateFrames());
        assertEquals(0, servers.values().stream().mapToInt(RpccServer::parkedChains).sum());
    }

    static int inFlight() {
        return servers.values().stream().mapToInt(RpccServer::hopsInFlight).sum();
    }
}
