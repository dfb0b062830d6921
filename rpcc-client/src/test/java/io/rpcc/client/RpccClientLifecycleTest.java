package io.rpcc.client;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.rpcc.core.ChainResult;
import io.rpcc.core.ChainingFunctionSource;
import io.rpcc.core.Metadata;
import io.rpcc.core.NodeClosedException;
import io.rpcc.core.NodeShuttingDownException;
import io.rpcc.core.StaticNameResolver;
import io.rpcc.core.StaticRoute;
import io.rpcc.core.TypeRegistry;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.function.Executable;

/**
 * The client's builder (defaults, bounds, names) and life cycle (build, then start; refused calls
 * before start and after close; close ends pending chains at once; shutdown drains), and
 * {@link ChainCall}'s validation.
 */
class RpccClientLifecycleTest {
    private static final Duration WAIT = Duration.ofSeconds(10);

    @Test
    void builderRejectsBadSettingsWithClearErrors() {
        RpccClient.Builder b = RpccClient.builder();
        assertThrows(NullPointerException.class, () -> b.timeout(null));
        assertMessage(IllegalArgumentException.class, "replyBufferSize", () -> b.replyBufferSize(0));
        assertMessage(IllegalArgumentException.class, "replyBufferSize", () -> b.replyBufferSize(-5));
        assertMessage(IllegalArgumentException.class, "replyBufferBytes", () -> b.replyBufferBytes(0));
        assertMessage(IllegalArgumentException.class, "inlineFunctionLimit", () -> b.inlineFunctionLimit(-1));
        assertThrows(NullPointerException.class, () -> b.interceptor(null));
        assertThrows(NullPointerException.class, () -> b.name(null));
        // the bounds themselves are fine
        b.replyBufferSize(1).replyBufferBytes(1).inlineFunctionLimit(0);
    }

    @Test
    void generatedNamesAreDistinctAndANameCanBeGiven() {
        String a = RpccClient.builder().build().name();
        String b = RpccClient.builder().build().name();
        assertTrue(a.matches("client-[0-9a-f]{8}"), a);
        assertNotEquals(a, b);
        assertEquals("frontend", RpccClient.builder().name("frontend").build().name());
    }

    @Test
    void aClientThatIsNotStartedRefusesEveryCall() {
        RpccClient client = RpccClient.builder().name("idle").build();
        ChainCall call = ChainCall.to("s", "f");
        List<Executable> calls = List.of(
                () -> client.startChain(call),
                () -> client.runChain(call),
                () -> client.call("s", "f", null),
                () -> client.startChainWithReplies(call, Object.class),
                () -> client.callWithReplies("s", "f", null, Object.class),
                () -> client.startChain(StaticRoute.of(StaticRoute.hop("s", "f")), "x"),
                client::address);
        for (Executable c : calls) {
            assertMessage(IllegalStateException.class, "start()", c);
        }
        assertEquals(0, client.chainsInFlight());
        client.close(); // closing a client that never started is fine
    }

    @Test
    void startsOnceListeningOnLoopback() {
        try (RpccClient client = RpccClient.builder().build()) {
            assertTrue(client == client.start(), "start() returns the client");
            assertEquals("127.0.0.1", client.address().getAddress().getHostAddress());
            assertTrue(client.address().getPort() > 0);
            assertMessage(IllegalStateException.class, "started", client::start);
        }
    }

    @Test
    void aClosedClientRefusesWithNodeClosedAndCannotRestart() throws Exception {
        RpccClient client = RpccClient.builder().name("closed").build().start();
        client.close();
        client.close(); // idempotent
        NodeClosedException thrown = assertThrows(NodeClosedException.class, () -> client.runChain(ChainCall.to("s", "f")));
        assertTrue(thrown.getMessage().contains("'closed'"), thrown.getMessage());
        assertInstanceOf(NodeClosedException.class, failureOf(client.startChain(ChainCall.to("s", "f"))));
        ReplySet<Object> replies = client.startChainWithReplies(ChainCall.to("s", "f"), Object.class);
        assertTrue(replies.isDone());
        assertInstanceOf(NodeClosedException.class, replies.error());
        assertMessage(IllegalStateException.class, "closed", client::start);
    }

    @Test
    void closeEndsPendingChainsAtOnce() throws Exception {
        StaticNameResolver names = new StaticNameResolver();
        CountDownLatch release = new CountDownLatch(1);
        try (CoreServer server = new CoreServer("slow", names, TypeRegistry.empty())
                .service("block", (params, metadata) -> {
                    release.await();
                    return "late";
                })) {
            names.register("slow", server.address());
            RpccClient client = RpccClient.builder().resolver(names).timeout(Duration.ofMinutes(5)).build().start();
            CompletableFuture<ChainResult> pending = client.call("slow", "block", null);
            ReplySet<Object> replies = client.callWithReplies("slow", "block", null, Object.class);
            awaitInFlight(client, 2);
            long start = System.nanoTime();
            client.close();
            Throwable failed = failureOf(pending);
            assertInstanceOf(NodeClosedException.class, failed);
            assertTrue(failed.getMessage().contains("'" + client.name() + "'"), failed.getMessage());
            replies.whenDone().get(WAIT.toSeconds(), TimeUnit.SECONDS);
            assertInstanceOf(NodeClosedException.class, replies.error());
            assertTrue(replies.isPartial());
            assertTrue(System.nanoTime() - start < WAIT.toNanos(), "the chains ended without waiting for a timeout");
            assertEquals(0, client.chainsInFlight());
            release.countDown();
        }
    }

    @Test
    void shutdownLetsChainsInFlightFinishAndRefusesNewOnes() throws Exception {
        StaticNameResolver names = new StaticNameResolver();
        CountDownLatch release = new CountDownLatch(1);
        try (CoreServer server = new CoreServer("slow", names, TypeRegistry.empty())
                .service("block", (params, metadata) -> {
                    release.await();
                    return "done";
                })) {
            names.register("slow", server.address());
            RpccClient client = RpccClient.builder().resolver(names).build().start();
            CompletableFuture<ChainResult> pending = client.call("slow", "block", null);
            awaitInFlight(client, 1);
            Thread shutdown = Thread.ofVirtual().start(() -> client.shutdown(WAIT));
            List<CompletableFuture<ChainResult>> accepted = new ArrayList<>(); // started before the drain began
            Throwable refused = null;
            long until = System.nanoTime() + WAIT.toNanos();
            while (refused == null && System.nanoTime() < until) {
                CompletableFuture<ChainResult> f = client.startChain(ChainCall.to("slow", "block"));
                try {
                    f.get(20, TimeUnit.MILLISECONDS);
                    throw new AssertionError("a blocked chain ended");
                } catch (ExecutionException e) {
                    refused = e.getCause();
                } catch (TimeoutException e) {
                    accepted.add(f);
                }
            }
            assertInstanceOf(NodeShuttingDownException.class, refused, "a draining client starts no chain");
            assertTrue(refused.getMessage().contains("shutting down"), refused.getMessage());
            assertTrue(shutdown.isAlive(), "shutdown waits for the chains in flight");
            release.countDown();
            assertEquals("done", pending.get(WAIT.toSeconds(), TimeUnit.SECONDS).value(), "the chain in flight finished");
            for (CompletableFuture<ChainResult> f : accepted) {
                assertEquals("done", f.get(WAIT.toSeconds(), TimeUnit.SECONDS).value());
            }
            shutdown.join(WAIT.toMillis());
            assertInstanceOf(NodeClosedException.class, failureOf(client.startChain(ChainCall.to("slow", "block"))));
        }
    }

    @Test
    void uploadNeedsARepository() throws Exception {
        try (RpccClient client = RpccClient.builder().build().start()) {
            assertMessage(IllegalStateException.class, "repository",
                    () -> client.upload(ChainingFunctionSource.java("public class A {}")));
        }
    }

    @Test
    void chainCallValidatesAndDefaults() {
        ChainCall call = ChainCall.to("s", "f");
        assertEquals(ChainingFunctionSource.NONE, call.chainingFunction());
        assertTrue(call.metadata().isEmpty());
        assertNull(call.timeout(), "the client's default applies");
        assertNull(call.interactive(), "the client's default applies");
        assertNull(call.deadline(), "the timeout alone bounds the chain");
        assertEquals(0, call.maxHops());
        assertThrows(NullPointerException.class, () -> ChainCall.to(null, "f"));
        assertThrows(NullPointerException.class, () -> ChainCall.to("s", null));
        assertMessage(IllegalArgumentException.class, "maxHops", () -> call.maxHops(-1));
        assertMessage(IllegalArgumentException.class, "SAME", () -> call.chainingFunction(ChainingFunctionSource.SAME));
        assertThrows(NullPointerException.class, () -> call.deadline((Instant) null));
        assertThrows(IllegalArgumentException.class, () -> call.metadata("", "empty key"));
        Instant at = Instant.now().plusSeconds(5);
        ChainCall full = call.params(1).timeout(Duration.ofSeconds(2)).deadline(at).interactive(true).maxHops(3)
                .metadata("k", "v");
        assertEquals(at, full.deadline());
        assertEquals(Duration.ofSeconds(2), full.timeout());
        assertEquals(Boolean.TRUE, full.interactive());
        assertEquals("v", full.metadata().get("k"));
        assertEquals(Metadata.empty(), call.metadata(), "setters copy: the original is unchanged");
        assertEquals(ChainingFunctionSource.NONE, call.chainingFunction(null).chainingFunction(), "none: a plain call");
        assertEquals(0, call.state(null).state().size(), "no state: an empty one");
        Instant before = Instant.now();
        assertTrue(!call.deadline(Duration.ofSeconds(1)).deadline().isBefore(before.plusSeconds(1)),
                "a budget counts from now");
    }

    private static void assertMessage(Class<? extends Throwable> type, String fragment, Executable call) {
        Throwable t = assertThrows(type, call);
        assertTrue(t.getMessage() != null && t.getMessage().contains(fragment),
                "message should name " + fragment + ": " + t.getMessage());
    }

    private static Throwable failureOf(CompletableFuture<?> f) throws Exception {
        try {
            f.get(WAIT.toSeconds(), TimeUnit.SECONDS);
        } catch (ExecutionException e) {
            return e.getCause();
        }
        throw new AssertionError("the future completed normally");
    }

    private static void awaitInFlight(RpccClient client, int chains) throws InterruptedException {
        long until = System.nanoTime() + WAIT.toNanos();
        while (client.chainsInFlight() < chains) {
            if (System.nanoTime() > until) {
                throw new AssertionError(client.chainsInFlight() + " of " + chains + " chains in flight");
            }
            Thread.sleep(5);
        }
    }
}
