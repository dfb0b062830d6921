package io.rpcc.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.rpcc.client.ChainCall;
import io.rpcc.client.ReplySet;
import io.rpcc.client.RpccClient;
import io.rpcc.core.ChainCancelledException;
import io.rpcc.core.ChainContext;
import io.rpcc.core.ServiceFunction;
import io.rpcc.core.StaticRoute;
import java.time.Duration;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A cancel and the start of a hop's service function, on real nodes: a service function never starts
 * once its node has marked the chain cancelled, however late in the hop's start the cancel lands
 * (here: while a server interceptor runs before it); and a reply set cancelled after the chain's
 * result arrived keeps that result, ends with the cancel, and reports the cancel as its own.
 */
@Timeout(value = 1, unit = TimeUnit.MINUTES)
class CancelledHopStartTest {

    @Test
    void aServiceFunctionNeverStartsOnceItsNodeMarkedTheChainCancelled() throws Exception {
        CountDownLatch intercepting = new CountDownLatch(1);
        AtomicInteger started = new AtomicInteger();
        try (Cluster cluster = new Cluster()) {
            cluster.server("s1", b -> b
                    .interceptor(new ServerInterceptor() {
                        @Override
                        public @Nullable Object interceptService(ChainContext context, String serviceFunction,
                                                                 @Nullable Object params, ServiceFunction next)
                                throws Exception {
                            if (!"x".equals(params)) {
                                return next.apply(params);
                            }
                            intercepting.countDown();
                            long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
                            while (!context.isCancelled() && System.nanoTime() < until) {
                                Thread.onSpinWait(); // deaf to the cancel's interrupt: only the mark ends the wait
                            }
                            return next.apply(params);
                        }
                    })
                    .service("work", p -> {
                        started.incrementAndGet();
                        return p;
                    }));
            RpccClient client = cluster.client();
            CompletableFuture<?> f = client.startChain(ChainCall.to("s1", "work").params("x")
                    .timeout(Duration.ofSeconds(30)));
            assertTrue(intercepting.await(20, TimeUnit.SECONDS));
            f.cancel(true);
            assertThrows(CancellationException.class, () -> f.get(20, TimeUnit.SECONDS));
            Thread.sleep(500); // the interceptor sees the mark and calls on
            assertEquals(0, started.get(), "the service function started after its node marked the chain cancelled");
            assertEquals("y", client.runChain(ChainCall.to("s1", "work").params("y")).value(), "s1 still serves");
        }
    }

    @Test
    void theOutcomesOfCancelledChainsAreNotKept() throws Exception {
        int chains = 100;
        CountDownLatch atHop2 = new CountDownLatch(chains);
        try (Cluster cluster = new Cluster()) {
            RpccServer s1 = cluster.server("s1", b -> b.service("step", p -> p));
            RpccServer s2 = cluster.server("s2", b -> b.service("wait", p -> {
                atHop2.countDown();
                Thread.sleep(30_000); // until the cancel interrupts it
                return p;
            }));
            RpccClient client = cluster.client();
            StaticRoute route = StaticRoute.of(StaticRoute.hop("s1", "step"), StaticRoute.hop("s2", "wait"));
            java.util.List<CompletableFuture<?>> all = new java.util.ArrayList<>();
            for (int i = 0; i < chains; i++) {
                all.add(client.startChain(ChainCall.along(route, i).timeout(Duration.ofSeconds(30))));
            }
            assertTrue(atHop2.await(30, TimeUnit.SECONDS));
            long kept = System.nanoTime() + TimeUnit.SECONDS.toNanos(20); // (an outcome is kept once its hop is quiet)
            while (s1.stats().outcomeCacheEntries() < chains && System.nanoTime() < kept) {
                Thread.sleep(10);
            }
            assertEquals(chains, s1.stats().outcomeCacheEntries(), "hop 1 of each chain is kept for a retry");
            all.forEach(f -> f.cancel(true));
            long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
            while ((s1.stats().outcomeCacheEntries() > 0 || s2.stats().outcomeCacheEntries() > 0 || s2.hopsInFlight() > 0)
                    && System.nanoTime() < until) {
                Thread.sleep(20);
            }
            assertEquals(0, s1.stats().outcomeCacheEntries(), "a cancelled chain is never sent again: its outcomes go");
            assertEquals(0, s2.stats().outcomeCacheEntries(), "nor is the outcome of a hop cancelled while it ran kept");
        }
    }

    @Test
    void aReplySetCancelledAfterItsResultKeepsTheResultAndEndsWithTheCancel() throws Exception {
        CountDownLatch release = new CountDownLatch(1);
        try (Cluster cluster = new Cluster()) {
            cluster.server("s1", b -> b.service("linger", p -> {
                ChainContext.current().startThread(() -> {
                    try {
                        ChainContext.current().preturn("first");
                        release.await(30, TimeUnit.SECONDS);
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                    }
                });
                return p;
            }));
            RpccClient client = cluster.client();
            ReplySet<String> set = client.startChainWithReplies(
                    ChainCall.along(StaticRoute.of(StaticRoute.hop("s1", "linger")), "done"), String.class);
            assertEquals("done", set.result().get(20, TimeUnit.SECONDS).value());
            assertEquals("first", set.next());
            assertTrue(set.cancel(), "the cancel ended the set: replies were still owed");
            assertTrue(set.isDone());
            assertTrue(set.isPartial());
            assertInstanceOf(ChainCancelledException.class, set.error());
            assertEquals("done", set.result().get().value(), "the result that arrived stays");
            assertTrue(!set.cancel(), "a second cancel ends nothing");
            release.countDown();
        }
    }

    @Test
    void aReplySetCancelledAfterItEndedReportsNothingCancelled() throws Exception {
        try (Cluster cluster = new Cluster()) {
            cluster.server("s1", b -> b.service("echo", p -> p));
            RpccClient client = cluster.client();
            ReplySet<String> set = client.startChainWithReplies(
                    ChainCall.along(StaticRoute.of(StaticRoute.hop("s1", "echo")), "done"), String.class);
            set.awaitDone();
            assertTrue(!set.cancel());
            assertEquals(null, set.error());
            assertEquals("done", set.result().get().value());
        }
    }
}
