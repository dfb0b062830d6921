package io.rpcc.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.rpcc.client.ChainCall;
import io.rpcc.client.Heartbeats;
import io.rpcc.client.RpccClient;
import io.rpcc.core.ChainResult;
import io.rpcc.core.StaticRoute;
import io.rpcc.server.atomic.TxVar;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A client's running atomic chain is promoted to primary as soon as the client's primary ends, on
 * real nodes: the PROMOTE follows the chain's trail to the server where its hop is parked waiting for
 * a lock, and the promoted chain wounds the older standard chain that holds the lock and wins it,
 * while that holder is still running (it restarts after). Left to its next restart, the parked chain
 * would wait for the holder to end.
 */
@Timeout(value = 2, unit = TimeUnit.MINUTES)
class AtomicPromotionTest {
    static final TxVar<Long> X = TxVar.of("x", 0L);
    static final TxVar<Long> W = TxVar.of("warm-up", 0L);
    static final Map<String, CountDownLatch> latches = new ConcurrentHashMap<>();
    Cluster cluster;
    RpccServer s;
    RpccClient one;
    RpccClient two;

    static CountDownLatch latch(String name) {
        return latches.computeIfAbsent(name, n -> new CountDownLatch(1));
    }

    @BeforeEach
    void start() {
        latches.clear();
        cluster = new Cluster();
        s = cluster.server("s", b -> b
                .service("write", p -> {
                    X.set(X.get() + 1);
                    return p;
                })
                .service("warm", p -> {
                    W.set(W.get() + 1);
                    return p;
                })
                .service("hold", p -> {
                    latch((String) p).await();
                    return p;
                }));
        one = cluster.client(c -> c.heartbeats(Heartbeats.every(Duration.ofSeconds(1), Duration.ofSeconds(60))));
        two = cluster.client(c -> c.heartbeats(Heartbeats.every(Duration.ofSeconds(1), Duration.ofSeconds(60))));
    }

    @AfterEach
    void stop() throws Exception {
        latches.values().forEach(CountDownLatch::countDown);
        cluster.close();
    }

    static ChainCall hold(String latch) {
        return ChainCall.to("s", "hold").params(latch).atomic().timeout(Duration.ofSeconds(90));
    }

    @Test
    void aChainParkedForALockIsPromotedWhenItsClientsPrimaryCommitsAndWoundsTheOlderHolder() throws Exception {
        for (int i = 0; i < 5; i++) { // client one's Lamport clock moves on: its next standard chain is younger
            one.runChain(ChainCall.to("s", "warm").params("w").atomic().timeout(Duration.ofSeconds(30)));
        }
        // client two: a primary that runs on (it locks nothing), then a standard chain that takes x and runs on
        CompletableFuture<ChainResult> twoPrimary = two.startChain(hold("two-primary"));
        CompletableFuture<ChainResult> holder = two.startChain(ChainCall.along(StaticRoute.of(
                StaticRoute.hop("s", "write"), StaticRoute.hop("s", "hold")), "holder").atomic()
                .timeout(Duration.ofSeconds(90)));
        eventually(() -> s.transactions().locksHeld() >= 1, "the holder (client two's standard chain) holds x");
        // client one: a primary that runs on, then a standard chain (younger than the holder) that waits for x
        CompletableFuture<ChainResult> onePrimary = one.startChain(hold("one-primary"));
        CompletableFuture<ChainResult> waiter = one.startChain(ChainCall.to("s", "write").params("waiter").atomic()
                .timeout(Duration.ofSeconds(90)));
        eventually(() -> s.transactions().parkedHops() >= 1, "client one's standard chain waits for x");
        Thread.sleep(300);
        assertFalse(waiter.isDone(), "a younger standard chain waits for the older holder: " + s.transactions());
        long woundsBefore = s.transactions().woundsSent();

        latch("one-primary").countDown(); // client one's primary commits: its waiting chain becomes primary now
        assertEquals("one-primary", onePrimary.get(30, TimeUnit.SECONDS).value());
        ChainResult won;
        try {
            won = waiter.get(30, TimeUnit.SECONDS);
        } catch (TimeoutException e) {
            throw new AssertionError("the promoted chain did not win x from the older standard holder while the holder"
                    + " ran (it was not promoted where it waits): " + s.transactions(), e);
        }
        assertEquals("waiter", won.value());
        assertFalse(holder.isDone(), "the holder still runs (it was wounded and started again)");
        assertTrue(s.transactions().woundsSent() > woundsBefore, "the promoted chain wounded the holder");

        latch("holder").countDown();
        latch("two-primary").countDown();
        assertEquals("holder", holder.get(60, TimeUnit.SECONDS).value());
        assertEquals("two-primary", twoPrimary.get(60, TimeUnit.SECONDS).value());
        eventually(() -> s.transactions().locksHeld() == 0, "locks freed");
        assertEquals(2L, X.get(), "the waiter's write and the holder's (restarted) write, once each");
    }

    static void eventually(BooleanSupplier condition, String what) {
        long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() > until) {
                throw new AssertionError("not within 20 s: " + what);
            }
            try {
                Thread.sleep(10);
            } catch (InterruptedException e) {
                throw new AssertionError(e);
            }
        }
    }
}
