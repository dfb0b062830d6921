package io.rpcc.client;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.rpcc.core.ChainCancelledException;
import io.rpcc.core.ChainResult;
import io.rpcc.core.ChainState;
import io.rpcc.core.ChainTimeoutException;
import io.rpcc.core.ChainingFunctionSource;
import io.rpcc.core.HopRejectedException;
import io.rpcc.core.HopUnreachableException;
import io.rpcc.core.Metadata;
import io.rpcc.core.ServiceFunctionException;
import io.rpcc.core.StaticNameResolver;
import io.rpcc.core.TypeRegistry;
import io.rpcc.core.UnknownServerException;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.function.UnaryOperator;
import java.util.stream.IntStream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * A client against a real node on loopback ({@link CoreServer}): results, errors naming the server,
 * timeouts, deadlines and metadata that travel with the chain, client interceptors, cancellation,
 * unreachable servers, stats, and a reply set fed by chaining functions that run at the client.
 */
class RpccClientChainTest {
    private static final Duration WAIT = Duration.ofSeconds(10);

    private final StaticNameResolver names = new StaticNameResolver();
    private final List<AutoCloseable> closing = new ArrayList<>();
    private final CountDownLatch release = new CountDownLatch(1);
    private CoreServer server;

    @BeforeEach
    void startServer() {
        server = new CoreServer("echo-server", names, TypeRegistry.empty())
                .service("echo", (params, metadata) -> params)
                .service("tenant", (params, metadata) -> metadata.get("tenant"))
                .service("fail", (params, metadata) -> {
                    throw new IllegalArgumentException("bad order " + params);
                })
                .service("block", (params, metadata) -> {
                    release.await(); // until the test ends, or interrupted when its chain is cancelled
                    return "released";
                });
        names.register(server.name(), server.address());
        closing.add(server);
    }

    @AfterEach
    void closeAll() throws Exception {
        release.countDown();
        for (AutoCloseable c : closing.reversed()) {
            c.close();
        }
    }

    private RpccClient client(UnaryOperator<RpccClient.Builder> config) {
        RpccClient c = config.apply(RpccClient.builder().resolver(names)).build().start();
        closing.add(c);
        return c;
    }

    private RpccClient client() {
        return client(b -> b);
    }

    private static Throwable failureOf(CompletableFuture<?> f) throws Exception {
        try {
            f.get(WAIT.toSeconds(), TimeUnit.SECONDS);
        } catch (ExecutionException e) {
            return e.getCause();
        }
        throw new AssertionError("the future completed normally");
    }

    @Test
    void aPlainCallReturnsTheServersResultAndPath() throws Exception {
        RpccClient client = client();
        ChainResult r = client.call("echo-server", "echo", "hello").get(WAIT.toSeconds(), TimeUnit.SECONDS);
        assertEquals("hello", r.value());
        assertEquals(List.of("echo-server"), r.path());
        assertEquals(client.name(), r.originator());
        assertFalse(r.interactive());
        assertEquals("again", client.runChain(ChainCall.to("echo-server", "echo").params("again")).value());
    }

    @Test
    void aServiceFailureArrivesTypedNamingTheServer() {
        RpccClient client = client();
        ServiceFunctionException e = assertThrows(ServiceFunctionException.class,
                () -> client.runChain(ChainCall.to("echo-server", "fail").params("o-1")));
        assertEquals("echo-server", e.host());
        assertEquals(1, e.hop());
        assertTrue(e.getMessage().contains("bad order o-1"), e.getMessage());
        assertEquals(0, client.chainsInFlight());
    }

    @Test
    void theCallsTimeoutOverridesTheClientsDefault() throws Exception {
        RpccClient client = client(b -> b.timeout(Duration.ofMillis(300)));
        long start = System.nanoTime();
        ChainTimeoutException byDefault = assertThrows(ChainTimeoutException.class,
                () -> client.runChain(ChainCall.to("echo-server", "block")));
        assertTrue(byDefault.getMessage().contains("300 ms"), byDefault.getMessage());
        assertTrue(System.nanoTime() - start < WAIT.toNanos(), "the default timeout ended the call");
        ChainTimeoutException byCall = assertThrows(ChainTimeoutException.class,
                () -> client.runChain(ChainCall.to("echo-server", "block").timeout(Duration.ofMillis(150))));
        assertTrue(byCall.getMessage().contains("150 ms"), byCall.getMessage());
        assertEquals("fast", client.runChain(ChainCall.to("echo-server", "echo").params("fast")
                .timeout(Duration.ofSeconds(5))).value(), "a longer per-call timeout applies too");
    }

    @Test
    void theDeadlineTravelsAsABudgetNoLargerThanItOrTheTimeout() throws Exception {
        RpccClient client = client();
        client.runChain(ChainCall.to("echo-server", "echo").params("none"));
        client.runChain(ChainCall.to("echo-server", "echo").params("deadline").deadline(Duration.ofSeconds(2)));
        client.runChain(ChainCall.to("echo-server", "echo").params("timeout").timeout(Duration.ofSeconds(3))
                .deadline(Instant.now().plusSeconds(60)));
        List<CoreServer.Seen> seen = server.seen();
        assertEquals(3, seen.size());
        long none = seen.get(0).budgetNanos();
        long deadline = seen.get(1).budgetNanos();
        long timeout = seen.get(2).budgetNanos();
        assertTrue(none <= TimeUnit.SECONDS.toNanos(30), "the default timeout bounds the budget: " + none);
        assertTrue(deadline > 0 && deadline <= TimeUnit.SECONDS.toNanos(2), "the deadline: " + deadline);
        assertTrue(timeout > TimeUnit.SECONDS.toNanos(2) && timeout <= TimeUnit.SECONDS.toNanos(3),
                "the timeout, earlier than the deadline: " + timeout);
    }

    @Test
    void metadataTravelsWithTheChain() throws Exception {
        RpccClient client = client();
        ChainCall call = ChainCall.to("echo-server", "tenant").metadata("tenant", "acme")
                .metadata("token", new byte[] {1, 2, 3});
        assertEquals("acme", client.runChain(call).value());
        Metadata seen = server.seen().getLast().metadata();
        assertEquals("acme", seen.get("tenant"));
        assertTrue(seen.isBytes("token"));
        assertEquals(3, seen.getBytes("token").length);
    }

    @Test
    void interceptorsRunInOrderAndChangeTheMetadata() throws Exception {
        List<String> order = new ArrayList<>();
        RpccClient client = client(b -> b
                .interceptor(call -> {
                    order.add("first saw " + call.metadata().get("tenant"));
                    return call.metadata("tenant", "from-first");
                })
                .interceptor(call -> {
                    order.add("second saw " + call.metadata().get("tenant"));
                    return call.metadata("tenant", call.metadata().get("tenant") + "+second");
                }));
        assertEquals("from-first+second",
                client.runChain(ChainCall.to("echo-server", "tenant").metadata("tenant", "app")).value());
        assertEquals(List.of("first saw app", "second saw from-first"), order);
        order.clear();
        assertEquals("from-first+second", client.call("echo-server", "tenant", null).get(WAIT.toSeconds(),
                TimeUnit.SECONDS).value(), "every way of starting a chain passes the interceptors");
        assertEquals(2, order.size());
    }

    @Test
    void anInterceptorRefusesAChainWithATypedErrorAndNothingIsSent() throws Exception {
        RpccClient client = client(b -> b.interceptor(call -> {
            if (!call.metadata().contains("authorization")) {
                throw new HopRejectedException("no credential: set metadata 'authorization'");
            }
            return call;
        }));
        HopRejectedException thrown = assertThrows(HopRejectedException.class,
                () -> client.runChain(ChainCall.to("echo-server", "echo").params("x")));
        assertTrue(thrown.getMessage().contains("no credential"), thrown.getMessage());
        assertInstanceOf(HopRejectedException.class, failureOf(client.startChain(ChainCall.to("echo-server", "echo"))));
        ReplySet<Object> replies = client.startChainWithReplies(ChainCall.to("echo-server", "echo"), Object.class);
        assertTrue(replies.isDone());
        assertInstanceOf(HopRejectedException.class, replies.error());
        assertInstanceOf(HopRejectedException.class, failureOf(replies.result()));
        assertTrue(server.seen().isEmpty(), "a refused chain never reaches a server");
        assertEquals("ok", client.runChain(ChainCall.to("echo-server", "echo").params("ok")
                .metadata("authorization", "t")).value());
        assertEquals(0, client.chainsInFlight());
    }

    @Test
    void anInterceptorReturningNoCallFailsTheStart() {
        RpccClient client = client(b -> b.interceptor(call -> null));
        NullPointerException e = assertThrows(NullPointerException.class,
                () -> client.runChain(ChainCall.to("echo-server", "echo")));
        assertTrue(e.getMessage().contains("interceptor"), e.getMessage());
    }

    @Test
    void anUnreachableServerIsNamedInTheError() throws Exception {
        int port;
        try (ServerSocket s = new ServerSocket(0)) { // a port where nothing listens once it is closed
            port = s.getLocalPort();
        }
        names.register("gone", new InetSocketAddress("127.0.0.1", port));
        RpccClient client = client(b -> b.connectTimeout(Duration.ofSeconds(2)));
        HopUnreachableException e = assertThrows(HopUnreachableException.class,
                () -> client.runChain(ChainCall.to("gone", "echo").params("x")));
        assertTrue(e.getMessage().contains("'gone'"), e.getMessage());
        assertTrue(e.isRetryable(), "an unreachable server may be back later");
        assertEquals(0, client.chainsInFlight());
        assertEquals("still serving", client.runChain(ChainCall.to("echo-server", "echo").params("still serving"))
                .value());
    }

    @Test
    void aServerWithoutAnAddressIsAnUnknownServer() {
        RpccClient client = client();
        UnknownServerException e = assertThrows(UnknownServerException.class,
                () -> client.runChain(ChainCall.to("nobody", "echo")));
        assertTrue(e.getMessage().contains("'nobody'"), e.getMessage());
    }

    @Test
    void cancellingTheFutureInterruptsTheServerAndEndsWithChainCancelled() throws Exception {
        RpccClient client = client();
        CompletableFuture<ChainResult> f = client.startChain(ChainCall.to("echo-server", "block")
                .timeout(Duration.ofSeconds(2)));
        awaitSeen(1);
        assertTrue(f.cancel(true));
        assertTrue(f.isCancelled());
        assertFalse(f.cancel(true), "cancelled once");
        CancellationException c = assertThrows(CancellationException.class, f::join);
        Throwable why = c;
        while (why != null && !(why instanceof ChainCancelledException)) {
            why = why.getCause(); // join may wrap the future's CancellationException in one of its own
        }
        ChainCancelledException cancelled = assertInstanceOf(ChainCancelledException.class, why, c::toString);
        assertEquals(client.name(), cancelled.host());
        awaitInterrupted(1);
        // the client forgets the chain once its budget (2 s) and the trail's grace have passed
        awaitNoChainsInFlight(client, Duration.ofSeconds(20));
    }

    @Test
    void cancellingAReplySetInterruptsTheServerAndKeepsItReadable() throws Exception {
        RpccClient client = client();
        ReplySet<String> replies = client.startChainWithReplies(ChainCall.to("echo-server", "block").timeout(WAIT),
                String.class);
        awaitSeen(1);
        assertTrue(replies.cancel());
        assertTrue(replies.isDone());
        assertInstanceOf(ChainCancelledException.class, replies.error());
        assertInstanceOf(ChainCancelledException.class, failureOf(replies.result()));
        assertFalse(replies.hasMore());
        awaitInterrupted(1);
        assertEquals(0, replies.arrivedAfterEnd());
        assertEquals(0, client.chainsInFlight());
    }

    @Test
    void statsCountChainsInFlightAndConnections() throws Exception {
        RpccClient client = client();
        ClientStats before = client.stats();
        assertEquals(0, before.chainsInFlight());
        assertEquals(0, before.connectionsOpen(), "connections open on first use");
        CompletableFuture<ChainResult> blocked = client.startChain(ChainCall.to("echo-server", "block").timeout(WAIT));
        awaitSeen(1);
        assertEquals(1, client.stats().chainsInFlight());
        assertEquals(1, client.chainsInFlight());
        assertTrue(client.stats().connectionsOpen() >= 1);
        release.countDown();
        assertEquals("released", blocked.get(WAIT.toSeconds(), TimeUnit.SECONDS).value());
        awaitNoChainsInFlight(client, WAIT);
        assertEquals(0, client.stats().lateFrames());
        assertEquals(0, client.lateFrames());
        assertTrue(client.stats().refusals().isEmpty());
    }

    /**
     * Chaining functions that run at the client (interactive mode) send partial replies into the
     * reply set: the buffer holds no more than its bound while nobody reads, and every reply arrives
     * in order once the reader reads.
     */
    @Test
    void interactiveRepliesStayWithinTheBufferBoundAndAllArrive() throws Exception {
        int bound = 4;
        int count = 25;
        RpccClient client = client(b -> b.replyBufferSize(bound));
        ChainingFunctionSource fanOut = ChainingFunctionSource.java("""
                import io.rpcc.core.*;
                public class FanOut implements ChainingFunction {
                    public NextHop apply(ChainState state, Object result) {
                        int n = (Integer) result;
                        for (int i = 0; i < n; i++) {
                            ChainContext.current().preturn("r" + i);
                        }
                        return NextHop.end("sent " + n);
                    }
                }
                """);
        ReplySet<String> replies = client.startChainWithReplies(ChainCall.to("echo-server", "echo").params(count)
                .chainingFunction(fanOut).interactive(true).timeout(Duration.ofSeconds(60)), String.class);
        long until = System.nanoTime() + WAIT.toNanos();
        while (replies.received() < bound && System.nanoTime() < until) {
            Thread.sleep(10);
        }
        Thread.sleep(200); // a producer that ignored the bound would have sent more by now
        assertEquals(bound, replies.received(), "unread, the set holds exactly its bound");
        List<String> read = replies.stream().toList();
        assertEquals(IntStream.range(0, count).mapToObj(i -> "r" + i).toList(), read);
        assertEquals("sent " + count, replies.result().get(WAIT.toSeconds(), TimeUnit.SECONDS).value());
        assertFalse(replies.isPartial());
        assertNull(replies.error());
        assertEquals(bound, replies.maxBuffered());
        assertEquals(0, replies.arrivedAfterEnd());
        assertTrue(replies.result().join().interactive());
    }

    @Test
    void aTimeoutEndsAReplySetTimedOutWithTheRepliesReceived() throws Exception {
        RpccClient client = client();
        ReplySet<Object> replies = client.startChainWithReplies(ChainCall.to("echo-server", "block")
                .timeout(Duration.ofMillis(200)), Object.class);
        assertSame(replies, replies.whenDone().get(WAIT.toSeconds(), TimeUnit.SECONDS));
        assertTrue(replies.timedOut());
        assertInstanceOf(ChainTimeoutException.class, replies.error());
        assertEquals(0, replies.received());
    }

    @Test
    void aChainStateReachesTheInteractiveChainingFunction() {
        RpccClient client = client(b -> b.interactive(true));
        ChainingFunctionSource greet = ChainingFunctionSource.java("""
                import io.rpcc.core.*;
                public class Greet implements ChainingFunction {
                    public NextHop apply(ChainState state, Object result) {
                        return NextHop.end(state.get("greeting", String.class) + " " + result);
                    }
                }
                """);
        ChainResult r = client.runChain("echo-server", "echo", "world", greet, ChainState.of("greeting", "hello"));
        assertEquals("hello world", r.value());
        assertTrue(r.interactive(), "the builder's default mode applies");
    }

    private void awaitSeen(int requests) throws InterruptedException {
        long until = System.nanoTime() + WAIT.toNanos();
        while (server.seen().size() < requests) {
            if (System.nanoTime() > until) {
                throw new AssertionError("the server saw " + server.seen().size() + " of " + requests + " requests");
            }
            Thread.sleep(5);
        }
    }

    private void awaitInterrupted(int services) throws InterruptedException {
        long until = System.nanoTime() + WAIT.toNanos();
        while (server.interrupted() < services) {
            if (System.nanoTime() > until) {
                throw new AssertionError("the cancel did not interrupt the server's service function");
            }
            Thread.sleep(5);
        }
    }

    private static void awaitNoChainsInFlight(RpccClient client, Duration wait) throws InterruptedException {
        long until = System.nanoTime() + wait.toNanos();
        while (client.chainsInFlight() > 0) {
            if (System.nanoTime() > until) {
                throw new AssertionError(client.chainsInFlight() + " chains in flight after their end");
            }
            Thread.sleep(5);
        }
    }
}
