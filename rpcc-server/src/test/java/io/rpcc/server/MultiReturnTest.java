package io.rpcc.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.rpcc.client.ChainCall;
import io.rpcc.client.ReplySet;
import io.rpcc.client.RpccClient;
import io.rpcc.core.ChainContext;
import io.rpcc.core.ChainResult;
import io.rpcc.core.ChainState;
import io.rpcc.core.ChainingFunctionSource;
import io.rpcc.core.ServiceFunctionException;
import io.rpcc.core.StaticRoute;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Flow;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.AfterParameterizedClassInvocation;
import org.junit.jupiter.params.BeforeParameterizedClassInvocation;
import org.junit.jupiter.params.Parameter;
import org.junit.jupiter.params.ParameterizedClass;
import org.junit.jupiter.params.provider.EnumSource;

/** preturn and ReplySet: replies from any thread of any hop, and a set that ends exactly after the last. */
@ParameterizedClass(name = "{0}")
@EnumSource(Cluster.Security.class)
class MultiReturnTest {
    /** Plaintext or mutual TLS: the run's argument, which {@link #start} sets the cluster up with. */
    @Parameter
    Cluster.Security security;

    static Cluster cluster;
    static RpccClient client;
    static final ExecutorService pool = Executors.newFixedThreadPool(4);
    /** Latches that tests release to let a server-side thread go on. */
    static final Map<String, CountDownLatch> gates = new ConcurrentHashMap<>();

    static void await(String gate) {
        try {
            if (!gates.computeIfAbsent(gate, g -> new CountDownLatch(1)).await(20, TimeUnit.SECONDS)) {
                throw new IllegalStateException("gate " + gate + " never opened");
            }
        } catch (InterruptedException e) {
            throw new IllegalStateException(e);
        }
    }

    static void open(String gate) {
        gates.computeIfAbsent(gate, g -> new CountDownLatch(1)).countDown();
    }

    @BeforeParameterizedClassInvocation
    static void start(Cluster.Security security) {
        cluster = new Cluster(security);
        cluster.server("a", b -> b
                .service("count", p -> {
                    int n = (Integer) p;
                    for (int i = 0; i < n; i++) {
                        ChainContext.current().preturn("r" + i);
                    }
                    return "counted " + n;
                })
                // Quatrain Fig. 4(a): a thread started but not yet run when the procedure returns.
                .service("lateThread", p -> {
                    ChainContext.current().startThread(() -> {
                        await((String) p);
                        ChainContext.current().preturn("from the late thread");
                    });
                    return "returned before the thread ran";
                })
                // Quatrain Fig. 4(b): an extra preturn takes a naive count to zero while a thread is still to run.
                .service("extraPreturn", p -> {
                    ChainContext ctx = ChainContext.current();
                    Runnable later = ctx.wrap(() -> {
                        await((String) p);
                        ChainContext.current().preturn("from the waiting task");
                    });
                    ctx.preturn("extra");
                    pool.execute(later);
                    return "returned";
                })
                .service("failAfter", p -> {
                    ChainContext.current().preturn("before 1");
                    ChainContext.current().preturn("before 2");
                    throw new IllegalStateException("failed after two replies");
                })
                .service("stall", p -> {
                    ChainContext.current().preturn("early 1");
                    ChainContext.current().preturn("early 2");
                    await((String) p);
                    return "too late";
                })
                .service("mixed", p -> {
                    ChainContext ctx = ChainContext.current();
                    ctx.startVirtualThread(() -> ChainContext.current().preturn("virtual"));
                    CompletableFuture.runAsync(() -> ChainContext.current().preturn("future"), ctx.executor(pool));
                    pool.submit(ctx.wrap(() -> {
                        ChainContext.current().preturn("callable");
                        return null;
                    }));
                    ctx.executor(pool).execute(() -> ChainContext.current().preturn("executor"));
                    ctx.preturn("direct");
                    return "mixed";
                })
                .service("flood", p -> {
                    int n = (Integer) p;
                    String payload = "x".repeat(1024);
                    for (int i = 0; i < n; i++) {
                        ChainContext.current().preturn(i + ":" + payload);
                    }
                    return n;
                })
                .service("pass", p -> p));
        cluster.server("b", b -> b
                .service("pass", p -> p)
                .service("lateThread", p -> {
                    ChainContext.current().startThread(() -> {
                        await((String) p);
                        ChainContext.current().preturn("late reply from b");
                    });
                    return p;
                }));
        cluster.server("c", b -> b.service("pass", p -> p));
        client = cluster.client();
    }

    @AfterParameterizedClassInvocation
    static void stop() throws Exception {
        cluster.close();
    }

    @AfterAll
    static void shutDownPool() {
        pool.shutdownNow();
    }

    private static List<Object> drain(ReplySet<?> replies) {
        List<Object> out = new ArrayList<>();
        while (replies.hasMore()) {
            out.add(replies.next());
        }
        return out;
    }

    @Test
    void repliesThenResultThenTheEnd() {
        ReplySet<String> replies = client.callWithReplies("a", "count", 5, String.class);
        assertEquals(List.of("r0", "r1", "r2", "r3", "r4"), drain(replies));
        assertTrue(replies.isDone());
        assertFalse(replies.isPartial());
        assertFalse(replies.timedOut());
        assertNull(replies.error());
        assertEquals("counted 5", replies.result().join().value());
        assertEquals(0, replies.arrivedAfterEnd());
    }

    @Test
    void futureApiCollectsTheReplies() {
        ChainResult r = client.call("a", "count", 3).join();
        assertEquals("counted 3", r.value());
        assertEquals(List.of("r0", "r1", "r2"), r.replies());
    }

    @Test
    void fig4aThreadStartedButNotYetRunWhenTheFunctionReturns() throws Exception {
        String gate = "4a-" + System.nanoTime();
        ReplySet<String> replies = client.callWithReplies("a", "lateThread", gate, String.class);
        assertEquals("returned before the thread ran", replies.result().get(10, TimeUnit.SECONDS).value());
        Thread.sleep(100);
        assertFalse(replies.isDone(), "the set must wait for the thread that has not run yet");
        open(gate);
        assertEquals(List.of("from the late thread"), drain(replies));
        assertFalse(replies.isPartial());
    }

    @Test
    void fig4bExtraPreturnDoesNotEndTheCallWhileATaskIsStillToRun() throws Exception {
        String gate = "4b-" + System.nanoTime();
        ReplySet<String> replies = client.callWithReplies("a", "extraPreturn", gate, String.class);
        assertEquals("extra", replies.next());
        replies.result().get(10, TimeUnit.SECONDS);
        Thread.sleep(100);
        assertFalse(replies.isDone(), "a naive count is back at zero here; the set must still wait");
        open(gate);
        assertEquals(List.of("from the waiting task"), drain(replies));
    }

    @Test
    void aReplyFromAnEarlierHopArrivesAfterTheFinalResult() throws Exception {
        String gate = "hops-" + System.nanoTime();
        StaticRoute route = StaticRoute.of(StaticRoute.hop("b", "lateThread"), StaticRoute.hop("a", "pass"),
                StaticRoute.hop("c", "pass"));
        ReplySet<String> replies = client.startChainWithReplies(ChainCall.along(route, gate), String.class);
        ChainResult result = replies.result().get(10, TimeUnit.SECONDS);
        assertEquals(List.of("b", "a", "c"), result.path());
        Thread.sleep(100);
        assertFalse(replies.isDone(), "hop 1 still has a thread that will reply");
        open(gate);
        assertEquals(List.of("late reply from b"), drain(replies));
        assertFalse(replies.isPartial());
    }

    @Test
    void everyWayOfHandingWorkToOtherThreadsKeepsTheContext() {
        ReplySet<String> replies = client.callWithReplies("a", "mixed", null, String.class);
        List<Object> got = drain(replies);
        assertEquals(5, got.size(), got.toString());
        assertTrue(got.containsAll(List.of("virtual", "future", "callable", "executor", "direct")), got.toString());
    }

    @Test
    void aFunctionThatThrowsAfterSomeRepliesGivesThemPlusTheError() {
        ReplySet<String> replies = client.callWithReplies("a", "failAfter", null, String.class);
        assertEquals(List.of("before 1", "before 2"), drain(replies));
        assertTrue(replies.isPartial());
        assertFalse(replies.timedOut());
        ServiceFunctionException e = assertInstanceOf(ServiceFunctionException.class, replies.error());
        assertTrue(e.remoteMessage().contains("failed after two replies"), e.remoteMessage());
    }

    @Test
    void aTimeoutKeepsTheRepliesReceivedSoFar() {
        String gate = "timeout-" + System.nanoTime();
        // 3 s: the two early replies must be in before the timeout even on a starved machine (with
        // 500 ms, under a load of 10 on 2 cores, the TLS variant's replies arrived after it)
        ReplySet<String> replies = client.startChainWithReplies(ChainCall.to("a", "stall").params(gate)
                .timeout(Duration.ofSeconds(3)), String.class);
        try {
            assertEquals(List.of("early 1", "early 2"), drain(replies));
            assertTrue(replies.timedOut());
            assertTrue(replies.isPartial());
            assertTrue(replies.result().isCompletedExceptionally());
        } finally {
            open(gate);
        }
    }

    @Test
    void chainingFunctionsSendClientResponsesWhileTheChainGoesOn() {
        ChainingFunctionSource respond = ChainingFunctionSource.java("""
                import io.rpcc.core.*;
                public class Respond implements ChainingFunction {
                    public NextHop apply(ChainState state, Object result) {
                        int step = state.get("step", Integer.class);
                        ChainContext.current().preturn("progress " + step + " at " + ChainContext.current().node());
                        if (step == 3) return NextHop.end("finished");
                        String next = step == 1 ? "b" : "c";
                        return NextHop.call(next, "pass", result, state.with("step", step + 1));
                    }
                }
                """);
        for (boolean interactive : new boolean[] {false, true}) {
            ReplySet<String> replies = client.startChainWithReplies(ChainCall.to("a", "pass").params("x")
                    .chainingFunction(respond).state(ChainState.of("step", 1)).interactive(interactive), String.class);
            List<Object> got = drain(replies);
            String where = interactive ? client.name() : null;
            assertEquals(List.of("progress 1 at " + (where != null ? where : "a"), "progress 2 at " + (where != null ? where : "b"),
                    "progress 3 at " + (where != null ? where : "c")), got);
            assertEquals("finished", replies.result().join().value());
        }
    }

    @Test
    void streamAndPublisherViews() throws Exception {
        assertEquals(List.of("r0", "r1", "r2"), client.callWithReplies("a", "count", 3, String.class).stream().toList());

        List<String> seen = new CopyOnWriteArrayList<>();
        CountDownLatch completed = new CountDownLatch(1);
        client.callWithReplies("a", "count", 4, String.class).publisher().subscribe(new Flow.Subscriber<>() {
            Flow.Subscription subscription;

            @Override
            public void onSubscribe(Flow.Subscription s) {
                subscription = s;
                s.request(1);
            }

            @Override
            public void onNext(String item) {
                seen.add(item);
                subscription.request(1);
            }

            @Override
            public void onError(Throwable t) {
                seen.add("error " + t);
                completed.countDown();
            }

            @Override
            public void onComplete() {
                completed.countDown();
            }
        });
        assertTrue(completed.await(10, TimeUnit.SECONDS));
        assertEquals(List.of("r0", "r1", "r2", "r3"), seen);
    }

    @Test
    void preturnAfterTheHopEndedFailsClearly() throws Exception {
        CompletableFuture<Throwable> seen = new CompletableFuture<>();
        RpccServer rogue = cluster.server("rogue", b -> b.service("leak", p -> {
            ChainContext ctx = ChainContext.current();
            new Thread(() -> { // not started through the context: the chain does not wait for it
                try {
                    Thread.sleep(300);
                    ctx.preturn("too late");
                    seen.complete(null);
                } catch (Throwable t) {
                    seen.complete(t);
                }
            }).start();
            return "done";
        }));
        ReplySet<String> replies = client.callWithReplies(rogue.name(), "leak", null, String.class);
        assertEquals(List.of(), drain(replies));
        Throwable t = seen.get(10, TimeUnit.SECONDS);
        assertInstanceOf(IllegalStateException.class, t);
        assertTrue(t.getMessage().contains("preturn after hop 1"), t.getMessage());
    }
}
