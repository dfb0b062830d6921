package io.rpcc.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.rpcc.client.ChainCall;
import io.rpcc.client.RpccClient;
import io.rpcc.core.ChainContext;
import io.rpcc.core.ChainException;
import io.rpcc.core.ChainResult;
import io.rpcc.core.ChainState;
import io.rpcc.core.ChainingFunctionException;
import io.rpcc.core.ChainingFunctionSource;
import io.rpcc.core.HopRejectedException;
import io.rpcc.core.HopTiming;
import io.rpcc.core.NodeShuttingDownException;
import io.rpcc.core.ServiceFunctionException;
import io.rpcc.core.StaticRoute;
import io.rpcc.core.SubChain;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Server-side hop decorators on real nodes: each hop's outcome told exactly once, for every kind of
 * hop and every way it ends; order; decorators and listeners that throw.
 */
@Timeout(value = 2, unit = TimeUnit.MINUTES)
class HopDecoratorTest {
    static final StaticRoute ROUTE = StaticRoute.of(StaticRoute.hop("s1", "see"), StaticRoute.hop("s2", "see"),
            StaticRoute.hop("s3", "see"));

    final Cluster cluster = new Cluster();

    @AfterEach
    void stop() throws Exception {
        cluster.close();
    }

    /** One hop a {@link Recorder} saw: how it started, how (and how often) it ended. */
    record Seen(HopDecorator.Start start, String thread, CompletableFuture<HopOutcome> outcome,
                CompletableFuture<HopTiming> timing, AtomicInteger ended, AtomicInteger afterRun,
                List<String> afterRunThreads) {
        HopOutcome awaitOutcome() throws Exception {
            return outcome.get(20, TimeUnit.SECONDS);
        }
    }

    /** Records every hop it decorates; a second {@code ended} for one hop is counted, not hidden. */
    static final class Recorder implements HopDecorator {
        final List<Seen> seen = new CopyOnWriteArrayList<>();

        @Override
        public Listener decorate(Start start) {
            assertEquals(start.context().chainId(), ChainContext.current().chainId(), "the hop's context is current");
            Seen s = new Seen(start, String.valueOf(Thread.currentThread().threadId()), new CompletableFuture<>(),
                    new CompletableFuture<>(), new AtomicInteger(), new AtomicInteger(), new CopyOnWriteArrayList<>());
            seen.add(s);
            return new Listener() {
                @Override
                public void afterRun() {
                    s.afterRun().incrementAndGet();
                    s.afterRunThreads().add(String.valueOf(Thread.currentThread().threadId()));
                }

                @Override
                public void ended(HopOutcome outcome, HopTiming timing) {
                    s.ended().incrementAndGet();
                    s.timing().complete(timing);
                    s.outcome().complete(outcome);
                }
            };
        }

        /** The one hop seen of {@code kind}, waiting for it to have been decorated. */
        Seen only(HopDecorator.Kind kind) throws Exception {
            long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
            while (System.nanoTime() < end) {
                List<Seen> of = seen.stream().filter(s -> s.start().kind() == kind).toList();
                if (!of.isEmpty()) {
                    assertEquals(1, of.size(), "one hop of kind " + kind + ": " + of);
                    return of.getFirst();
                }
                Thread.sleep(5);
            }
            throw new AssertionError("no hop of kind " + kind);
        }

        /** Waits until every hop seen has ended, then checks each ended once, after one afterRun on its thread. */
        void assertEachEndedOnce() throws Exception {
            for (Seen s : seen) {
                s.awaitOutcome();
            }
            Thread.sleep(100); // a second ended() would come now
            for (Seen s : seen) {
                assertEquals(1, s.ended().get(), "ended once: " + s.start());
                assertEquals(1, s.afterRun().get(), "afterRun once: " + s.start());
                assertEquals(List.of(s.thread()), s.afterRunThreads(), "afterRun on the hop's thread");
            }
        }
    }

    private RpccServer server(String name, HopDecorator... decorators) {
        return cluster.server(name, b -> {
            b.service("see", p -> p);
            b.service("boom", p -> {
                throw new IllegalStateException("boom at " + ChainContext.current().node());
            });
            for (HopDecorator d : decorators) {
                b.decorator(d);
            }
            return b;
        });
    }

    @Test
    void aHopThatForwardsAndAHopThatEndsTheChain() throws Exception {
        Recorder r1 = new Recorder();
        Recorder r2 = new Recorder();
        Recorder r3 = new Recorder();
        server("s1", r1);
        server("s2", r2);
        server("s3", r3);
        RpccClient client = cluster.client();
        ChainResult result = client.runChain(ChainCall.along(ROUTE, "x"));
        assertEquals("x", result.value());

        Seen at1 = r1.only(HopDecorator.Kind.SERVICE);
        assertEquals(new HopOutcome.Forwarded("s2", "see"), at1.awaitOutcome());
        assertEquals("see", at1.start().serviceFunction());
        assertEquals(1, at1.start().context().hop());
        assertEquals("s1", at1.start().context().node());
        assertEquals(client.name(), at1.start().context().originator());
        HopTiming t1 = at1.timing().get();
        assertNotNull(t1, "a hop that forwarded has its timing");
        assertEquals(result.timings().getFirst(), t1, "the timing the chain carries");

        assertEquals(new HopOutcome.Forwarded("s3", "see"), r2.only(HopDecorator.Kind.SERVICE).awaitOutcome());
        Seen at3 = r3.only(HopDecorator.Kind.SERVICE);
        HopOutcome ended = at3.awaitOutcome();
        assertEquals(new HopOutcome.Finished("x"), ended);
        assertTrue(ended.succeeded());
        assertNull(ended.failure());
        assertEquals(3, at3.timing().get().hop());
        for (Recorder r : List.of(r1, r2, r3)) {
            r.assertEachEndedOnce();
        }
    }

    @Test
    void decoratorsRunInRegistrationOrderAndListenersInReverse() throws Exception {
        List<String> events = new CopyOnWriteArrayList<>();
        CountDownLatch done = new CountDownLatch(2);
        cluster.server("s1", b -> b.service("see", p -> {
                    events.add("service");
                    return p;
                })
                .interceptor(new ServerInterceptor() {
                    @Override
                    public Object interceptService(ChainContext context, String serviceFunction, Object params,
                                                   io.rpcc.core.ServiceFunction next) throws Exception {
                        events.add("interceptor");
                        return next.apply(params);
                    }
                })
                .decorator(ordered("outer", events, done))
                .decorator(ordered("inner", events, done)));
        cluster.client().runChain(ChainCall.to("s1", "see").params("x"));
        assertTrue(done.await(20, TimeUnit.SECONDS));
        assertEquals(List.of("decorate outer", "decorate inner", "interceptor", "service", "afterRun inner",
                "afterRun outer", "ended inner Finished", "ended outer Finished"), events);
    }

    private static HopDecorator ordered(String name, List<String> events, CountDownLatch done) {
        return start -> {
            events.add("decorate " + name);
            return new HopDecorator.Listener() {
                @Override
                public void afterRun() {
                    events.add("afterRun " + name);
                }

                @Override
                public void ended(HopOutcome outcome, HopTiming timing) {
                    events.add("ended " + name + " " + outcome.getClass().getSimpleName());
                    done.countDown();
                }
            };
        };
    }

    @Test
    void aFailingServiceFunctionIsToldWithTheExceptionTheOriginatorSees() throws Exception {
        Recorder r1 = new Recorder();
        Recorder r2 = new Recorder();
        server("s1", r1);
        server("s2", r2);
        StaticRoute route = StaticRoute.of(StaticRoute.hop("s1", "see"), StaticRoute.hop("s2", "boom"));
        ServiceFunctionException e = assertThrows(ServiceFunctionException.class,
                () -> cluster.client().runChain(ChainCall.along(route, "x")));
        assertEquals(new HopOutcome.Forwarded("s2", "boom"), r1.only(HopDecorator.Kind.SERVICE).awaitOutcome());
        Seen at2 = r2.only(HopDecorator.Kind.SERVICE);
        HopOutcome.Failed failed = assertInstanceOf(HopOutcome.Failed.class, at2.awaitOutcome());
        assertFalse(failed.succeeded());
        ServiceFunctionException told = assertInstanceOf(ServiceFunctionException.class, failed.failure());
        assertEquals("s2", told.host());
        assertEquals(2, told.hop());
        assertEquals(e.remoteMessage(), told.remoteMessage());
        assertEquals(e.path(), told.path());
        assertNull(at2.timing().get(), "it failed before its chaining step");
        r1.assertEachEndedOnce();
        r2.assertEachEndedOnce();
    }

    static final ChainingFunctionSource THROWS = ChainingFunctionSource.java("""
            import io.rpcc.core.*;
            public class Throws implements ChainingFunction {
                public NextHop apply(ChainState state, Object result) {
                    throw new IllegalArgumentException("no way on from " + result);
                }
            }
            """);

    @Test
    void aFailingChainingFunctionIsToldWithTheExceptionTheOriginatorSees() throws Exception {
        Recorder r1 = new Recorder();
        server("s1", r1);
        ChainingFunctionException e = assertThrows(ChainingFunctionException.class, () -> cluster.client()
                .runChain(ChainCall.to("s1", "see").params("x").chainingFunction(THROWS)));
        Seen at1 = r1.only(HopDecorator.Kind.SERVICE);
        ChainException told = assertInstanceOf(HopOutcome.Failed.class, at1.awaitOutcome()).failure();
        assertInstanceOf(ChainingFunctionException.class, told);
        assertEquals(e.remoteMessage(), told.remoteMessage());
        assertEquals("s1", told.host());
        assertNotNull(at1.timing().get(), "the chaining function ran: the hop has its timing");
        r1.assertEachEndedOnce();
    }

    @Test
    void aChainCancelledWhileTheServiceFunctionRunsIsToldCancelled() throws Exception {
        Recorder r1 = new Recorder();
        CountDownLatch entered = new CountDownLatch(1);
        CountDownLatch interrupted = new CountDownLatch(1);
        cluster.server("s1", b -> b.decorator(r1).service("block", p -> {
            entered.countDown();
            try {
                Thread.sleep(60_000);
            } catch (InterruptedException e) {
                interrupted.countDown();
                throw e;
            }
            return p;
        }));
        server("s2");
        CompletableFuture<ChainResult> f = cluster.client().startChain(ChainCall.to("s1", "block").params("x")
                .chainingFunction(ChainingFunctionSource.java("""
                        import io.rpcc.core.*;
                        public class On implements ChainingFunction {
                            public NextHop apply(ChainState state, Object result) {
                                return NextHop.callThenEnd("s2", "see", result);
                            }
                        }
                        """)));
        assertTrue(entered.await(20, TimeUnit.SECONDS));
        assertTrue(f.cancel(true));
        assertThrows(CancellationException.class, f::join);
        assertTrue(interrupted.await(20, TimeUnit.SECONDS));
        HopOutcome outcome = r1.only(HopDecorator.Kind.SERVICE).awaitOutcome();
        assertEquals(new HopOutcome.Cancelled(), outcome);
        assertFalse(outcome.succeeded());
        r1.assertEachEndedOnce();
    }

    static final ChainingFunctionSource THEN_B = ChainingFunctionSource.java("""
            import io.rpcc.core.*;
            public class ThenB implements ChainingFunction {
                public NextHop apply(ChainState state, Object result) {
                    if (ChainContext.current().hop() == 1) return NextHop.callThenEnd("b", "add", result);
                    return NextHop.end(result);
                }
            }
            """);

    @Test
    void aHopAtAChainingProxy() throws Exception {
        Recorder atA = new Recorder();
        Recorder atProxy = new Recorder();
        Recorder atB = new Recorder();
        cluster.server("proxy", b -> b.actAsChainingProxy().decorator(atProxy));
        cluster.server("a", b -> b.chainingProxy("proxy").service("add", p -> (Integer) p + 1).decorator(atA));
        cluster.server("b", b -> b.service("add", p -> (Integer) p + 10).decorator(atB));
        assertEquals(12, cluster.client().runChain(ChainCall.to("a", "add").params(1).chainingFunction(THEN_B)).value());

        assertEquals(new HopOutcome.Delegated("proxy"), atA.only(HopDecorator.Kind.SERVICE).awaitOutcome());
        Seen proxied = atProxy.only(HopDecorator.Kind.CHAINING_PROXY);
        assertEquals(new HopOutcome.Forwarded("b", "add"), proxied.awaitOutcome());
        assertEquals("add", proxied.start().serviceFunction(), "the service function that ran at a");
        assertEquals("proxy", proxied.start().context().node());
        assertEquals("proxy", proxied.timing().get().chainingHost());
        assertEquals(new HopOutcome.Finished(12), atB.only(HopDecorator.Kind.SERVICE).awaitOutcome());
        assertEquals(1, atProxy.seen.size(), "the proxy runs no service hop");
        for (Recorder r : List.of(atA, atProxy, atB)) {
            r.assertEachEndedOnce();
        }
    }

    static final ChainingFunctionSource FORK = ChainingFunctionSource.java("""
            import io.rpcc.core.*;
            import java.util.List;
            public class Fork implements ChainingFunction {
                public NextHop apply(ChainState state, Object result) {
                    return NextHop.split(List.of(NextHop.callThenEnd("s2", "see", result + "-2"),
                            NextHop.callThenEnd("s3", "see", result + "-3"))).mergeAt("s1");
                }
            }
            """);

    @Test
    void eachPartialReplyIsToldBeforeTheHopEnds() throws Exception {
        AtomicInteger replied = new AtomicInteger();
        CompletableFuture<Integer> repliedAtEnd = new CompletableFuture<>();
        cluster.server("s1", b -> b.decorator(start -> new HopDecorator.Listener() {
            @Override
            public void replied() {
                replied.incrementAndGet();
            }

            @Override
            public void ended(HopOutcome outcome, HopTiming timing) {
                repliedAtEnd.complete(replied.get());
            }
        }).service("replies", p -> {
            ChainContext.current().preturn("a");
            ChainContext.current().startVirtualThread(() -> ChainContext.current().preturn("b"));
            return p;
        }));
        var set = cluster.client().callWithReplies("s1", "replies", "x", String.class);
        assertEquals(2, set.stream().count());
        assertEquals(2, repliedAtEnd.get(20, TimeUnit.SECONDS), "both replies told, before the hop ended");
    }

    @Test
    void eachFailoverOfARequestTheHopSendsOnIsToldBeforeTheHopEnds() throws Exception {
        List<String> told = new CopyOnWriteArrayList<>();
        CompletableFuture<List<String>> toldAtEnd = new CompletableFuture<>();
        cluster.server("s1", b -> b.decorator(start -> new HopDecorator.Listener() {
            @Override
            public void failedOver(String server, InetSocketAddress failed, InetSocketAddress next, Throwable failure) {
                told.add(server + " " + failed.getPort() + " -> " + next.getPort() + ": "
                        + (failure.getMessage().contains(":" + failed.getPort()) ? "why, naming the endpoint" : failure));
            }

            @Override
            public void ended(HopOutcome outcome, HopTiming timing) {
                toldAtEnd.complete(List.copyOf(told));
            }
        }).service("see", p -> p));
        InetSocketAddress s2 = cluster.server("s2", b -> b.service("see", p -> p)).address();
        InetSocketAddress dead;
        try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            dead = new InetSocketAddress(InetAddress.getLoopbackAddress(), socket.getLocalPort()); // closed: nobody listens
        }
        cluster.names.register("s2", dead, s2);
        StaticRoute route = StaticRoute.of(StaticRoute.hop("s1", "see"), StaticRoute.hop("s2", "see"));
        assertEquals("x", cluster.client().runChain(ChainCall.along(route, "x")).value());
        assertEquals(List.of("s2 " + dead.getPort() + " -> " + s2.getPort() + ": why, naming the endpoint"),
                toldAtEnd.get(20, TimeUnit.SECONDS), "the failover to s2's second endpoint, told before the hop ended");
    }

    @Test
    void aSplitAndItsMerge() throws Exception {
        Recorder r1 = new Recorder();
        Recorder r2 = new Recorder();
        Recorder r3 = new Recorder();
        server("s1", r1);
        server("s2", r2);
        server("s3", r3);
        ChainResult result = cluster.client().runChain(ChainCall.to("s1", "see").params("x").chainingFunction(FORK));
        assertEquals(List.of("x-2", "x-3"), result.value());

        assertEquals(new HopOutcome.Split(List.of("s2", "s3"), "s1"), r1.only(HopDecorator.Kind.SERVICE).awaitOutcome());
        assertEquals(new HopOutcome.BranchEnded("s1"), r2.only(HopDecorator.Kind.SERVICE).awaitOutcome());
        assertEquals(new HopOutcome.BranchEnded("s1"), r3.only(HopDecorator.Kind.SERVICE).awaitOutcome());
        Seen merge = r1.only(HopDecorator.Kind.MERGE);
        assertEquals(new HopOutcome.Finished(List.of("x-2", "x-3")), merge.awaitOutcome());
        assertNull(merge.start().serviceFunction());
        assertEquals(2, r1.seen.size(), "the split's opening and the branches' outcomes are not hops");
        for (Recorder r : List.of(r1, r2, r3)) {
            r.assertEachEndedOnce();
        }
    }

    @Test
    void aSubChainReturnedAndComposed() throws Exception {
        Recorder r1 = new Recorder();
        Recorder r2 = new Recorder();
        cluster.server("s1", b -> b.decorator(r1)
                .service("returned", p -> SubChain.to("s2", "see").params(p + "!").composition(false))
                .service("composed", p -> SubChain.to("s2", "see").params(p + "?").composition(true)));
        server("s2", r2);
        RpccClient client = cluster.client();
        assertEquals("x!", client.runChain(ChainCall.to("s1", "returned").params("x")).value());
        assertEquals(new HopOutcome.SubChainStarted("s2", "see"), r1.only(HopDecorator.Kind.SERVICE).awaitOutcome());
        assertEquals(new HopOutcome.Returned("s1", false), r2.only(HopDecorator.Kind.SERVICE).awaitOutcome());
        Seen back = r1.only(HopDecorator.Kind.SUB_CHAIN_RETURN);
        assertEquals(new HopOutcome.Finished("x!"), back.awaitOutcome());
        assertNull(back.start().serviceFunction());
        r1.assertEachEndedOnce();
        r2.assertEachEndedOnce();

        r1.seen.clear();
        r2.seen.clear();
        assertEquals("y?", client.runChain(ChainCall.to("s1", "composed").params("y")).value());
        assertEquals(new HopOutcome.SubChainStarted("s2", "see"), r1.only(HopDecorator.Kind.SERVICE).awaitOutcome());
        assertEquals(new HopOutcome.Returned("s1", true), r2.only(HopDecorator.Kind.SERVICE).awaitOutcome());
        Seen composed = r2.only(HopDecorator.Kind.SUB_CHAIN_RETURN);
        assertEquals(new HopOutcome.Finished("y?"), composed.awaitOutcome());
        assertEquals(1, r1.seen.size(), "the parent goes on at s2: nothing comes back to s1");
        r1.assertEachEndedOnce();
        r2.assertEachEndedOnce();
    }

    @Test
    void theOutcomeComesAfterTheWorkTheHopStartedHasSentItsReplies() throws Exception {
        Recorder r1 = new Recorder();
        AtomicBoolean taskDone = new AtomicBoolean();
        AtomicBoolean doneAtEnd = new AtomicBoolean();
        CountDownLatch told = new CountDownLatch(1);
        cluster.server("s1", b -> b.decorator(r1).decorator(start -> (outcome, timing) -> {
            doneAtEnd.set(taskDone.get());
            told.countDown();
        }).service("later", p -> {
            ChainContext.current().startVirtualThread(() -> {
                try {
                    Thread.sleep(300);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
                ChainContext.current().preturn("late reply");
                taskDone.set(true);
            });
            return p;
        }));
        var replies = cluster.client().startChainWithReplies(ChainCall.to("s1", "later").params("x"), String.class);
        assertEquals("late reply", replies.next());
        assertTrue(told.await(20, TimeUnit.SECONDS));
        assertTrue(doneAtEnd.get(), "told after the hop's last reply was written");
        assertEquals(new HopOutcome.Finished("x"), r1.only(HopDecorator.Kind.SERVICE).awaitOutcome());
        r1.assertEachEndedOnce();
    }

    @Test
    void aDecoratorThatThrowsRejectsTheHop() throws Exception {
        Recorder before = new Recorder();
        AtomicInteger ran = new AtomicInteger();
        Recorder r3 = new Recorder();
        server("s1");
        cluster.server("s2", b -> b.decorator(before).decorator(start -> {
            if ("no".equals(start.context().metadata().get("token"))) {
                throw new HopRejectedException("token 'no' refused");
            }
            throw new IllegalStateException("decorator broken");
        }).service("see", p -> {
            ran.incrementAndGet();
            return p;
        }));
        server("s3", r3);
        RpccClient client = cluster.client();

        HopRejectedException e = assertThrows(HopRejectedException.class,
                () -> client.runChain(ChainCall.along(ROUTE, "x")));
        assertEquals("s2", e.host());
        assertEquals(2, e.hop());
        assertTrue(e.remoteMessage().contains("IllegalStateException: decorator broken"), e.remoteMessage());
        assertTrue(e.remoteMessage().contains("hop decorator"), e.remoteMessage());
        HopOutcome.Failed failed = assertInstanceOf(HopOutcome.Failed.class, before.only(HopDecorator.Kind.SERVICE)
                .awaitOutcome());
        assertInstanceOf(HopRejectedException.class, failed.failure());
        assertEquals(e.remoteMessage(), failed.failure().remoteMessage());

        before.seen.clear();
        HopRejectedException typed = assertThrows(HopRejectedException.class,
                () -> client.runChain(ChainCall.along(ROUTE, "x").metadata("token", "no")));
        assertEquals("token 'no' refused", typed.remoteMessage());
        assertEquals("s2", typed.host());
        assertInstanceOf(HopOutcome.Failed.class, before.only(HopDecorator.Kind.SERVICE).awaitOutcome());
        assertEquals(0, ran.get(), "the rejected hop's service function never ran");
        assertTrue(r3.seen.isEmpty(), "no hop after it");
        before.assertEachEndedOnce();
    }

    @Test
    void aListenerThatThrowsChangesNothing() throws Exception {
        Recorder outer = new Recorder();
        Recorder inner = new Recorder();
        cluster.server("s1", b -> b.service("see", p -> p).decorator(outer)
                .decorator(start -> new HopDecorator.Listener() {
                    @Override
                    public void afterRun() {
                        throw new IllegalStateException("afterRun broken");
                    }

                    @Override
                    public void ended(HopOutcome outcome, HopTiming timing) {
                        throw new IllegalStateException("ended broken");
                    }
                })
                .decorator(inner));
        RpccClient client = cluster.client();
        for (int i = 0; i < 3; i++) {
            assertEquals("x" + i, client.runChain(ChainCall.to("s1", "see").params("x" + i)).value());
        }
        assertEquals(3, outer.seen.size());
        assertEquals(3, inner.seen.size());
        for (Seen s : outer.seen) {
            assertInstanceOf(HopOutcome.Finished.class, s.awaitOutcome());
        }
        outer.assertEachEndedOnce();
        inner.assertEachEndedOnce();
    }

    @Test
    void aHopRefusedByADrainingServer() throws Exception {
        Recorder r1 = new Recorder();
        CountDownLatch entered = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        RpccServer s1 = cluster.server("s1", b -> b.decorator(r1).service("hold", p -> {
            entered.countDown();
            release.await();
            return p;
        }).service("see", p -> p));
        RpccClient client = cluster.client();
        CompletableFuture<ChainResult> held = client.startChain(ChainCall.to("s1", "hold").params("h"));
        assertTrue(entered.await(20, TimeUnit.SECONDS));
        Thread drain = Thread.ofVirtual().start(() -> s1.shutdown(Duration.ofSeconds(20)));
        NodeShuttingDownException refused = null;
        for (int i = 0; i < 200 && refused == null; i++) { // until the server drains
            try {
                client.runChain(ChainCall.to("s1", "see").params("r"));
                Thread.sleep(10);
            } catch (NodeShuttingDownException e) {
                refused = e;
            }
        }
        assertNotNull(refused, "the draining server refused a hop");
        release.countDown();
        assertEquals("h", held.get(20, TimeUnit.SECONDS).value());
        drain.join();
        List<Seen> refusedHops = r1.seen.stream().filter(s -> "see".equals(s.start().serviceFunction())
                && s.outcome().isDone() && s.outcome().join() instanceof HopOutcome.Refused).toList();
        assertEquals(1, refusedHops.size(), r1.seen.toString());
        HopOutcome.Refused told = (HopOutcome.Refused) refusedHops.getFirst().outcome().join();
        assertInstanceOf(NodeShuttingDownException.class, told.failure());
        assertEquals(refused.remoteMessage(), told.failure().remoteMessage());
        r1.assertEachEndedOnce();
    }
}
