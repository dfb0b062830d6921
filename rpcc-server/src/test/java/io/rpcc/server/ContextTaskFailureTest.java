package io.rpcc.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.rpcc.client.ChainCall;
import io.rpcc.client.ReplySet;
import io.rpcc.client.RpccClient;
import io.rpcc.core.ChainContext;
import io.rpcc.core.ServiceFunctionException;
import io.rpcc.core.StaticRoute;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Work handed to other threads through the context that throws ends the chain partial with that
 * error, naming the hop and host, like a service function that throws: for every kind of hand-off.
 */
class ContextTaskFailureTest {
    static Cluster cluster;
    static RpccClient client;
    static final ExecutorService pool = Executors.newFixedThreadPool(4);
    static volatile CountDownLatch lateGate = new CountDownLatch(1);

    /** Starts {@code task} on another thread the way {@code kind} names. */
    static void handOff(String kind, Runnable task) throws Exception {
        ChainContext ctx = ChainContext.current();
        switch (kind) {
            case "startThread" -> ctx.startThread(task);
            case "startVirtualThread" -> ctx.startVirtualThread(task);
            case "executor" -> ctx.executor(pool).execute(task);
            case "wrapRunnable" -> pool.execute(ctx.wrap(task));
            case "wrapCallable" -> pool.submit(ctx.wrap(() -> {
                task.run();
                return 1;
            }));
            case "completableFuture" -> CompletableFuture.supplyAsync(() -> 1, pool)
                    .thenRunAsync(ctx.wrap(task), pool);
            // stages on the context's executor: the future keeps the error, so the pipeline is tracked
            case "supplyAsyncOnContextExecutor" -> ctx.track(CompletableFuture.supplyAsync(() -> {
                task.run();
                return 1;
            }, ctx.executor(pool)));
            case "thenApplyAsyncOnContextExecutor" -> ctx.track(CompletableFuture.supplyAsync(() -> 1, ctx.executor(pool))
                    .thenApplyAsync(x -> {
                        task.run();
                        return x;
                    }, ctx.executor(pool))
                    .thenApply(x -> x + 1));
            default -> throw new IllegalArgumentException(kind);
        }
    }

    @BeforeAll
    static void start() {
        cluster = new Cluster();
        cluster.server("t", b -> b
                .service("fail", p -> {
                    String kind = (String) p;
                    ChainContext.current().preturn("before");
                    handOff(kind, () -> {
                        ChainContext.current().preturn("in task");
                        throw new IllegalStateException("boom from " + kind);
                    });
                    return "returned";
                })
                // a stage fails and a later one handles it: no error
                .service("recovered", p -> {
                    ChainContext ctx = ChainContext.current();
                    ctx.track(CompletableFuture.supplyAsync(() -> {
                        ChainContext.current().preturn("in stage");
                        throw new IllegalStateException("handled boom");
                    }, ctx.executor(pool)).exceptionally(e -> {
                        ChainContext.current().preturn("recovered " + e.getCause().getMessage());
                        return null;
                    }));
                    return "returned";
                })
                // the task fails before the hop hands over, and the hop never replied
                .service("failQuietly", p -> {
                    Thread t = ChainContext.current().startVirtualThread(() -> {
                        throw new IllegalArgumentException("silent boom");
                    });
                    t.join();
                    return "returned";
                })
                // the task fails after the chain's result reached the client
                .service("failLate", p -> {
                    ChainContext.current().startVirtualThread(() -> {
                        try {
                            lateGate.await(20, TimeUnit.SECONDS);
                        } catch (InterruptedException e) {
                            Thread.currentThread().interrupt();
                        }
                        throw new IllegalStateException("late boom");
                    });
                    return "first";
                }));
        cluster.server("u", b -> b.service("echo", p -> p));
        client = cluster.client();
    }

    @AfterAll
    static void stop() throws Exception {
        cluster.close();
        pool.shutdownNow();
    }

    @ParameterizedTest
    @ValueSource(strings = {"startThread", "startVirtualThread", "executor", "wrapRunnable", "wrapCallable",
            "completableFuture", "supplyAsyncOnContextExecutor", "thenApplyAsyncOnContextExecutor"})
    void aThrowingTaskEndsTheSetPartialWithItsError(String kind) {
        ReplySet<String> replies = client.startChainWithReplies(ChainCall.to("t", "fail").params(kind), String.class);
        List<String> got = replies.stream().toList();
        assertEquals(List.of("before", "in task"), got.stream().sorted().toList());
        assertTrue(replies.isPartial(), "partial");
        ServiceFunctionException e = assertInstanceOf(ServiceFunctionException.class, replies.error());
        assertEquals(IllegalStateException.class.getName(), e.exceptionName());
        assertTrue(e.remoteMessage().contains("boom from " + kind), e.remoteMessage());
        assertTrue(e.remoteMessage().contains("hop 1") && e.remoteMessage().contains("'t'"), e.remoteMessage());
        assertEquals("t", e.host());
        assertEquals(1, e.hop());
        assertEquals(List.of("t"), e.path());
        // the future API fails with the same error
        CompletionException f = assertThrows(CompletionException.class,
                () -> client.startChain(ChainCall.to("t", "fail").params(kind)).join());
        assertInstanceOf(ServiceFunctionException.class, f.getCause());
        // and the server goes on serving
        assertEquals("ok", client.call("u", "echo", "ok").join().value());
    }

    @Test
    void aTrackedPipelineWhoseErrorIsHandledEndsComplete() {
        ReplySet<String> replies = client.startChainWithReplies(ChainCall.to("t", "recovered"), String.class);
        assertEquals(List.of("in stage", "recovered handled boom"), replies.stream().toList());
        assertTrue(!replies.isPartial(), () -> "complete, but: " + replies.error());
        assertEquals("returned", replies.result().join().value());
    }

    @Test
    void trackingAfterTheHopEndedIsRefused() {
        ChainContext[] kept = new ChainContext[1];
        cluster.server("late", b -> b.service("keep", p -> {
            kept[0] = ChainContext.current();
            return "kept";
        }));
        ReplySet<String> replies = client.startChainWithReplies(ChainCall.to("late", "keep"), String.class);
        replies.awaitDone();
        IllegalStateException e = assertThrows(IllegalStateException.class,
                () -> kept[0].track(CompletableFuture.completedFuture(1)));
        assertTrue(e.getMessage().contains("has finished"), e.getMessage());
    }

    @Test
    void aTaskThatFailsBeforeTheHopHandsOverIsReportedThoughTheHopNeverReplied() {
        ReplySet<String> replies = client.startChainWithReplies(ChainCall.to("t", "failQuietly"), String.class);
        replies.awaitDone();
        assertTrue(replies.isPartial());
        assertEquals(IllegalArgumentException.class.getName(), replies.error().exceptionName());
        assertEquals(1, replies.error().hop());
    }

    @Test
    void aTaskThatFailsAfterTheResultArrivedStillEndsTheSetPartial() throws Exception {
        lateGate = new CountDownLatch(1);
        ReplySet<String> replies = client.startChainWithReplies(ChainCall.along(StaticRoute.of(
                StaticRoute.hop("t", "failLate"), StaticRoute.hop("u", "echo")), "x"), String.class);
        assertEquals("first", replies.result().get(20, TimeUnit.SECONDS).value()); // hop 2 echoed hop 1's result
        lateGate.countDown();
        replies.awaitDone();
        assertTrue(replies.isPartial(), "partial");
        assertEquals("late boom", replies.error().remoteMessage().replaceAll(".*: ", ""));
        assertEquals("t", replies.error().host());
        assertEquals(1, replies.error().hop());
    }
}
