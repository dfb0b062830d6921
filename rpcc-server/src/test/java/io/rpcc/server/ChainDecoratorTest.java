package io.rpcc.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.rpcc.client.ChainCall;
import io.rpcc.client.ChainDecorator;
import io.rpcc.client.ChainDecoratorException;
import io.rpcc.client.ReplySet;
import io.rpcc.client.RpccClient;
import io.rpcc.core.ChainCancelledException;
import io.rpcc.core.ChainContext;
import io.rpcc.core.ChainException;
import io.rpcc.core.ChainResult;
import io.rpcc.core.ChainState;
import io.rpcc.core.ChainTimeoutException;
import io.rpcc.core.ServiceFunctionException;
import io.rpcc.core.StaticRoute;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Function;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Client decorators on real nodes: one outcome per call in every start mode (future, plain call,
 * blocking, with replies, interactive), on success, failure, cancel and timeout; order; failures of
 * decorators.
 */
class ChainDecoratorTest {
    final Cluster cluster = new Cluster();
    final CountDownLatch never = new CountDownLatch(1);
    final CountDownLatch lateReply = new CountDownLatch(1);
    final AtomicInteger ran = new AtomicInteger();

    /** Every outcome told, keyed by the call's "id" metadata. */
    final ConcurrentHashMap<String, List<Outcome>> outcomes = new ConcurrentHashMap<>();

    record Outcome(ChainDecorator.Mode mode, boolean interactive, @Nullable ChainResult result,
                   @Nullable Throwable failure) {
    }

    /** Records each call's outcome under its "id". */
    final ChainDecorator recorder = start -> {
        String id = start.call().metadata().get("id");
        return ChainDecorator.Decoration.of(start.call(), (result, failure) -> outcomes
                .computeIfAbsent(id, k -> new CopyOnWriteArrayList<>())
                .add(new Outcome(start.mode(), start.interactive(), result, failure)));
    };

    RpccClient client;

    @BeforeEach
    void start() {
        cluster.server("s1", b -> b
                .service("echo", p -> {
                    ran.incrementAndGet();
                    return p;
                })
                .service("fail", p -> {
                    throw new IllegalStateException("out of stock");
                })
                .service("three", p -> {
                    for (int i = 1; i <= 3; i++) {
                        ChainContext.current().preturn("part " + i);
                    }
                    return "whole";
                })
                .service("replyThenFail", p -> {
                    ChainContext.current().preturn("part 1");
                    throw new IllegalStateException("out of stock after one part");
                })
                .service("hang", p -> {
                    never.await();
                    return p;
                })
                .service("replies", p -> {
                    ChainContext ctx = ChainContext.current();
                    ctx.preturn("r1");
                    ctx.startVirtualThread(() -> { // a reply after the result: the set ends after it
                        try {
                            lateReply.await();
                        } catch (InterruptedException e) {
                            Thread.currentThread().interrupt();
                            return;
                        }
                        ChainContext.current().preturn("r2");
                    });
                    return "done";
                }));
        cluster.server("s2", b -> b.service("echo", p -> p));
        client = cluster.client(b -> b.decorator(recorder));
    }

    @AfterEach
    void stop() throws Exception {
        lateReply.countDown();
        never.countDown();
        cluster.close();
    }

    static ChainCall call(String id, String service, Object params) {
        return ChainCall.to("s1", service).params(params).metadata("id", id);
    }

    @Test
    void eachRetryIsToldBeforeTheCallEnds() throws Exception {
        int dead;
        try (java.net.ServerSocket socket = new java.net.ServerSocket(0)) {
            dead = socket.getLocalPort();
        }
        cluster.names.register("gone", new java.net.InetSocketAddress("127.0.0.1", dead)); // never there
        List<String> told = new CopyOnWriteArrayList<>();
        RpccClient retrying = cluster.client(b -> b.retryPolicy(io.rpcc.client.RetryPolicy.attempts(3)
                .backoff(java.time.Duration.ofMillis(10), java.time.Duration.ofMillis(10), 1))
                .decorator(start -> ChainDecorator.Decoration.of(start.call(), new ChainDecorator.Listener() {
                    @Override
                    public void retried(int attempt, Throwable failure) {
                        told.add("retry " + attempt + " after " + ((ChainException) failure).code());
                    }

                    @Override
                    public void ended(@Nullable ChainResult result, @Nullable Throwable failure) {
                        told.add("ended " + ((ChainException) failure).code());
                    }
                })));
        assertThrows(ChainException.class, () -> retrying.runChain(ChainCall.to("gone", "echo").params("x")));
        assertEquals(List.of("retry 2 after HOP_UNREACHABLE", "retry 3 after HOP_UNREACHABLE", "ended HOP_UNREACHABLE"),
                told);
        assertEquals(2, retrying.stats().retries(), "still counted");
    }

    @Test
    void eachFailoverOfTheFirstHopIsToldBeforeTheCallEnds() throws Exception {
        java.net.InetSocketAddress s2 = cluster.names.resolve("s2").orElseThrow();
        java.net.InetSocketAddress dead;
        try (java.net.ServerSocket socket = new java.net.ServerSocket(0)) {
            dead = new java.net.InetSocketAddress("127.0.0.1", socket.getLocalPort()); // closed: nobody listens
        }
        cluster.names.register("s2", dead, s2);
        List<String> told = new CopyOnWriteArrayList<>();
        RpccClient c = cluster.client(b -> b.decorator(start -> ChainDecorator.Decoration.of(start.call(),
                new ChainDecorator.Listener() {
                    @Override
                    public void failedOver(String server, java.net.InetSocketAddress failed,
                                           java.net.InetSocketAddress next, Throwable failure) {
                        told.add("failover " + server + " " + failed.getPort() + " -> " + next.getPort() + ": "
                                + (failure.getMessage().contains(":" + failed.getPort()) ? "why, naming the endpoint"
                                : failure));
                    }

                    @Override
                    public void ended(@Nullable ChainResult result, @Nullable Throwable failure) {
                        told.add("ended " + (result != null ? result.value() : failure));
                    }
                })));
        assertEquals("x", c.runChain(ChainCall.to("s2", "echo").params("x")).value());
        assertEquals(List.of("failover s2 " + dead.getPort() + " -> " + s2.getPort() + ": why, naming the endpoint",
                "ended x"), told);
        assertEquals(1, c.stats().failovers(), "still counted");
    }

    /** The one outcome of call {@code id}, after waiting a little for a second one that must not come. */
    Outcome onlyOutcome(String id) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (!outcomes.containsKey(id) && System.nanoTime() < deadline) {
            Thread.sleep(5);
        }
        Thread.sleep(50);
        List<Outcome> told = outcomes.get(id);
        assertTrue(told != null, "call " + id + " was never told its outcome");
        assertEquals(1, told.size(), "call " + id + " told " + told);
        return told.get(0);
    }

    @Test
    void everyStartModeTellsOneOutcomeOfASuccess() throws Exception {
        for (boolean interactive : new boolean[] {false, true}) {
            String p = interactive ? "i-" : "c-";
            assertEquals("a", client.startChain(call(p + "future", "echo", "a").interactive(interactive)).join().value());
            assertEquals("b", client.runChain(call(p + "blocking", "echo", "b").interactive(interactive)).value());
            ChainResult along = client.runChain(ChainCall.along(StaticRoute.of(StaticRoute.hop("s1", "echo"),
                    StaticRoute.hop("s2", "echo")), "c").metadata("id", p + "route").interactive(interactive));
            assertEquals(2, along.hops());

            assertOutcome(onlyOutcome(p + "future"), ChainDecorator.Mode.FUTURE, interactive, "a");
            assertOutcome(onlyOutcome(p + "blocking"), ChainDecorator.Mode.BLOCKING, interactive, "b");
            Outcome route = onlyOutcome(p + "route");
            assertOutcome(route, ChainDecorator.Mode.BLOCKING, interactive, "c");
            assertEquals(2, route.result().hops());
        }
        // a plain call is a future; its decorator has no metadata to key on, so count on a fresh client
        List<Outcome> plain = new CopyOnWriteArrayList<>();
        RpccClient other = cluster.client(b -> b.decorator(start -> ChainDecorator.Decoration.of(start.call(),
                (r, f) -> plain.add(new Outcome(start.mode(), start.interactive(), r, f)))));
        assertEquals("d", other.call("s1", "echo", "d").join().value());
        Thread.sleep(50);
        assertEquals(1, plain.size(), plain.toString());
        assertOutcome(plain.get(0), ChainDecorator.Mode.FUTURE, false, "d");
    }

    @Test
    void eachReplyIsToldBeforeTheCallEndsInEveryMode() throws Exception {
        List<String> events = new CopyOnWriteArrayList<>();
        AtomicLong bytesTold = new AtomicLong();
        RpccClient c = cluster.client(b -> b.decorator(start -> ChainDecorator.Decoration.of(start.call(),
                new ChainDecorator.Listener() {
                    @Override
                    public void replied(int bytes) {
                        events.add(bytes > 0 ? "reply" : "reply of " + bytes + " bytes");
                        bytesTold.addAndGet(bytes);
                    }

                    @Override
                    public void ended(@Nullable ChainResult result, @Nullable Throwable failure) {
                        events.add(failure == null ? "ended" : "failed");
                    }
                })));
        List<String> three = List.of("reply", "reply", "reply", "ended");
        List<String> oneThenFailed = List.of("reply", "failed");
        for (boolean interactive : new boolean[] {false, true}) {
            String mode = interactive ? "interactive " : "chain mode ";
            // each mode's listeners are told before its future, runChain or set ends
            assertEquals(3, c.startChain(ChainCall.to("s1", "three").interactive(interactive)).join().replies().size());
            assertEquals(three, take(events), mode + "startChain");
            c.runChain(ChainCall.to("s1", "three").interactive(interactive));
            assertEquals(three, take(events), mode + "runChain");
            c.startChainWithReplies(ChainCall.to("s1", "three").interactive(interactive), String.class)
                    .whenDone().get(10, TimeUnit.SECONDS);
            assertEquals(three, take(events), mode + "startChainWithReplies");

            assertThrows(ServiceFunctionException.class,
                    () -> c.runChain(ChainCall.to("s1", "replyThenFail").interactive(interactive)));
            assertEquals(oneThenFailed, take(events), mode + "runChain that fails after a reply");
            assertThrows(CompletionException.class,
                    () -> c.startChain(ChainCall.to("s1", "replyThenFail").interactive(interactive)).join());
            assertEquals(oneThenFailed, take(events), mode + "startChain that fails after a reply");
            c.startChainWithReplies(ChainCall.to("s1", "replyThenFail").interactive(interactive), String.class)
                    .whenDone().get(10, TimeUnit.SECONDS);
            assertEquals(oneThenFailed, take(events), mode + "a set that fails after a reply");
        }
        c.call("s1", "three", null).join();
        assertEquals(three, take(events), "call");
        c.callWithReplies("s1", "three", null, String.class).whenDone().get(10, TimeUnit.SECONDS);
        assertEquals(three, take(events), "callWithReplies");
        // a chaining function's replies: sent by the server in chain mode, made at the client in interactive mode
        ChainCall replyTwo = ChainCall.to("s1", "echo").params("x")
                .chainingFunction(ChainingFunctionPreturnTest.REPLY_N).state(ChainState.of("n", 2));
        c.runChain(replyTwo);
        assertEquals(List.of("reply", "reply", "ended"), take(events), "chain mode");
        c.runChain(replyTwo.interactive(true));
        assertEquals(List.of("reply of 0 bytes", "reply of 0 bytes", "ended"), take(events), "interactive mode");
        assertEquals(c.stats().replyBytesReceived(), bytesTold.get(),
                "the bytes told are the replies' frames, as the client's stats count them");
        assertEquals(32, c.stats().repliesReceived(), "3 + 3 + 3 + 1 + 1 + 1 in each mode, 3 + 3 + 2 more");
    }

    private static List<String> take(List<String> events) {
        List<String> taken = List.copyOf(events);
        events.clear();
        return taken;
    }

    @Test
    void aReplySetIsToldWhenTheSetEndsNotWhenTheResultArrives() throws Exception {
        String id = "c-replies";
        ReplySet<String> set = client.startChainWithReplies(call(id, "replies", null), String.class);
        assertEquals("done", set.result().get(10, TimeUnit.SECONDS).value());
        assertEquals("r1", set.next());
        Thread.sleep(100);
        assertFalse(outcomes.containsKey(id), "told before the set ended: " + outcomes.get(id));
        lateReply.countDown();
        set.whenDone().get(10, TimeUnit.SECONDS); // the listener is told before whenDone completes
        assertTrue(outcomes.containsKey(id), "not told by the time the set ended");
        assertEquals("r2", set.next());
        assertOutcome(onlyOutcome(id), ChainDecorator.Mode.WITH_REPLIES, false, "done");
    }

    @Test
    void anInteractiveReplySetIsToldWhenTheSetEnds() throws Exception {
        String id = "i-replies";
        AtomicBoolean doneWhenTold = new AtomicBoolean();
        AtomicReference<ReplySet<?>> holder = new AtomicReference<>();
        RpccClient c = cluster.client(b -> b.decorator(recorder).decorator(start -> ChainDecorator.Decoration.of(
                start.call(), (r, f) -> doneWhenTold.set(holder.get().isDone()))));
        ReplySet<String> set = c.startChainWithReplies(call(id, "replies", null).interactive(true), String.class);
        holder.set(set);
        lateReply.countDown(); // (after the set is held: the set cannot end before the decorator can look at it)
        set.whenDone().get(10, TimeUnit.SECONDS);
        assertTrue(doneWhenTold.get(), "told before the set ended");
        assertOutcome(onlyOutcome(id), ChainDecorator.Mode.WITH_REPLIES, true, "done");
    }

    @Test
    void failuresAreToldOnceInEveryMode() throws Exception {
        for (boolean interactive : new boolean[] {false, true}) {
            String p = interactive ? "i-" : "c-";
            CompletionException async = assertThrows(CompletionException.class,
                    () -> client.startChain(call(p + "future", "fail", null).interactive(interactive)).join());
            assertThrows(ServiceFunctionException.class,
                    () -> client.runChain(call(p + "blocking", "fail", null).interactive(interactive)));
            ReplySet<Object> set = client.startChainWithReplies(call(p + "replies", "fail", null)
                    .interactive(interactive), Object.class);
            set.whenDone().get(10, TimeUnit.SECONDS);

            assertSame(async.getCause(), failure(onlyOutcome(p + "future"), ServiceFunctionException.class));
            failure(onlyOutcome(p + "blocking"), ServiceFunctionException.class);
            assertSame(set.error(), failure(onlyOutcome(p + "replies"), ServiceFunctionException.class));
        }
    }

    @Test
    void aCancelIsToldOnceAtOnceInEveryMode() throws Exception {
        for (boolean interactive : new boolean[] {false, true}) {
            String p = interactive ? "i-" : "c-";
            CompletableFuture<ChainResult> f = client.startChain(call(p + "future", "hang", null)
                    .interactive(interactive));
            awaitInFlight();
            assertTrue(f.cancel(true));
            assertTrue(outcomes.containsKey(p + "future"), "the cancel was not told at once");
            assertThrows(CancellationException.class, f::join);
            Throwable why = f.handle((r, e) -> e).join(); // the future's own CancellationException
            assertInstanceOf(CancellationException.class, why);
            assertSame(why.getCause(), failure(onlyOutcome(p + "future"), ChainCancelledException.class));

            ReplySet<Object> set = client.startChainWithReplies(call(p + "replies", "hang", null)
                    .interactive(interactive), Object.class);
            awaitInFlight();
            assertTrue(set.cancel());
            set.whenDone().get(10, TimeUnit.SECONDS);
            assertSame(set.error(), failure(onlyOutcome(p + "replies"), ChainCancelledException.class));
        }
    }

    @Test
    void aTimeoutIsToldOnceInEveryMode() throws Exception {
        Duration t = Duration.ofMillis(300);
        for (boolean interactive : new boolean[] {false, true}) {
            String p = interactive ? "i-" : "c-";
            CompletionException async = assertThrows(CompletionException.class, () -> client.startChain(
                    call(p + "future", "hang", null).timeout(t).interactive(interactive)).join());
            assertThrows(ChainTimeoutException.class, () -> client.runChain(
                    call(p + "blocking", "hang", null).timeout(t).interactive(interactive)));
            ReplySet<Object> set = client.startChainWithReplies(
                    call(p + "replies", "hang", null).timeout(t).interactive(interactive), Object.class);
            set.whenDone().get(10, TimeUnit.SECONDS);

            assertSame(async.getCause(), failure(onlyOutcome(p + "future"), ChainTimeoutException.class));
            failure(onlyOutcome(p + "blocking"), ChainTimeoutException.class);
            assertTrue(set.timedOut());
            failure(onlyOutcome(p + "replies"), ChainTimeoutException.class);
        }
    }

    @Test
    void decoratorsWrapInRegistrationOrderAroundTheInterceptors() throws Exception {
        List<String> events = new CopyOnWriteArrayList<>();
        Function<String, ChainDecorator> named = name -> start -> {
            events.add(name + " decorates, sees " + start.call().metadata().get("trail"));
            String trail = start.call().metadata().get("trail");
            return ChainDecorator.Decoration.of(start.call().metadata("trail", (trail == null ? "" : trail) + name),
                    new ChainDecorator.Listener() {
                        @Override
                        public void afterStart() {
                            events.add(name + " after start");
                        }

                        @Override
                        public void ended(@Nullable ChainResult result, @Nullable Throwable failure) {
                            events.add(name + " ended " + (result == null ? failure : result.value()));
                        }
                    });
        };
        RpccClient ordered = cluster.client(b -> b
                .interceptor(call -> {
                    events.add("interceptor sees " + call.metadata().get("trail"));
                    return call;
                })
                .decorator(named.apply("A"))
                .decorator(named.apply("B")));
        assertEquals("x", ordered.runChain(call("o", "echo", "x")).value());
        assertEquals(List.of("A decorates, sees null", "B decorates, sees A", "interceptor sees AB",
                "B after start", "A after start", "B ended x", "A ended x"), events);
    }

    @Test
    void aDecoratorThatThrowsFailsTheCallWithATypedErrorAndTheClientStaysUsable() throws Exception {
        AtomicBoolean broken = new AtomicBoolean(true);
        List<Outcome> outer = new CopyOnWriteArrayList<>();
        ChainDecorator faulty = start -> {
            if (broken.get()) {
                throw new IllegalArgumentException("no tenant in the call");
            }
            return ChainDecorator.Decoration.of(start.call());
        };
        RpccClient c = cluster.client(b -> b
                .decorator(start -> ChainDecorator.Decoration.of(start.call(),
                        (r, f) -> outer.add(new Outcome(start.mode(), start.interactive(), r, f))))
                .decorator(faulty));

        ChainDecoratorException blocking = assertThrows(ChainDecoratorException.class,
                () -> c.runChain(call("t1", "echo", "x")));
        assertInstanceOf(IllegalArgumentException.class, blocking.getCause());
        assertEquals(faulty.getClass().getName(), blocking.decorator());
        assertTrue(blocking.getMessage().contains("'echo' at 's1'")
                && blocking.getMessage().contains("no tenant in the call")
                && blocking.getMessage().contains("did not start"), blocking.getMessage());

        CompletionException async = assertThrows(CompletionException.class,
                () -> c.startChain(call("t2", "echo", "x")).join());
        assertInstanceOf(ChainDecoratorException.class, async.getCause());

        ReplySet<Object> set = c.startChainWithReplies(call("t3", "echo", "x"), Object.class);
        set.whenDone().get(10, TimeUnit.SECONDS);
        assertTrue(set.isPartial());
        assertInstanceOf(ChainDecoratorException.class, set.result().handle((r, e) -> e).join());

        assertEquals(0, ran.get(), "no chain started");
        assertEquals(3, outer.size(), "the outer decorator is told each failure once: " + outer);
        for (Outcome o : outer) {
            assertInstanceOf(ChainDecoratorException.class, o.failure());
        }
        assertEquals(0, c.chainsInFlight());

        broken.set(false);
        assertEquals("y", c.runChain(call("t4", "echo", "y")).value());
        assertEquals("z", c.startChain(call("t5", "echo", "z")).join().value());
        assertEquals(2, ran.get());
    }

    @Test
    void aListenerThatThrowsChangesNothing() throws Exception {
        RpccClient c = cluster.client(b -> b
                .decorator(recorder)
                .decorator(start -> ChainDecorator.Decoration.of(start.call(), (r, f) -> {
                    throw new IllegalStateException("listener bug");
                })));
        assertEquals("x", c.runChain(call("l1", "echo", "x")).value());
        assertEquals("y", c.startChain(call("l2", "echo", "y")).join().value());
        assertOutcome(onlyOutcome("l1"), ChainDecorator.Mode.BLOCKING, false, "x");
        assertOutcome(onlyOutcome("l2"), ChainDecorator.Mode.FUTURE, false, "y");
    }

    @Test
    void aStartThatFailsInsideTheDecoratorsIsTheirOutcome() throws Exception {
        RpccClient c = cluster.client(b -> b
                .decorator(recorder)
                .interceptor(call -> {
                    throw new IllegalStateException("no credential");
                }));
        assertThrows(IllegalStateException.class, () -> c.runChain(call("f1", "echo", "x")));
        assertThrows(CompletionException.class, () -> c.startChain(call("f2", "echo", "x")).join());
        assertEquals("no credential", onlyOutcome("f1").failure().getMessage());
        assertEquals("no credential", onlyOutcome("f2").failure().getMessage());
        assertEquals(0, ran.get());
    }

    private void awaitInFlight() throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (client.chainsInFlight() == 0 && System.nanoTime() < deadline) {
            Thread.sleep(5);
        }
        Thread.sleep(100); // the hop is running at s1
    }

    private static void assertOutcome(Outcome o, ChainDecorator.Mode mode, boolean interactive, Object value) {
        assertEquals(mode, o.mode());
        assertEquals(interactive, o.interactive());
        assertNull(o.failure(), () -> "failed: " + o.failure());
        assertEquals(value, o.result().value());
    }

    private static Throwable failure(Outcome o, Class<? extends Throwable> type) {
        assertNull(o.result(), () -> "a result: " + o.result());
        return assertInstanceOf(type, o.failure());
    }
}
