package io.rpcc.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.rpcc.client.ChainCall;
import io.rpcc.client.RpccClient;
import io.rpcc.core.ChainContext;
import io.rpcc.core.StaticRoute;
import io.rpcc.server.atomic.TxVar;
import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A participant that loses the originator of its transaction: the client dies (goes silent, then
 * its process ends: no goodbye, no decision) after the first server voted and while the second
 * runs its hop. Both servers ask the originator, cannot reach it for the in-doubt window (set to
 * 1.5 s here), and abort on their own (presumed abort): their locks are free and nothing changed.
 */
@Timeout(value = 2, unit = TimeUnit.MINUTES)
class AtomicOriginatorLostTest {
    static final TxVar<Long> X = TxVar.of("x", 100L);
    static final TxVar<Long> Y = TxVar.of("y", 100L);
    Cluster cluster;
    RpccServer a;
    RpccServer b;
    final CountDownLatch entered = new CountDownLatch(1);
    final CountDownLatch release = new CountDownLatch(1);

    @BeforeEach
    void start() {
        System.setProperty("rpcc.atomic.inDoubtMillis", "1500");
        try {
            cluster = new Cluster();
            a = cluster.server("a", s -> s.service("add", p -> {
                X.set(X.get() + (Long) p);
                return p;
            }));
            b = cluster.server("b", s -> s.service("addAndWait", p -> {
                Y.set(Y.get() + (Long) p);
                entered.countDown();
                release.await(60, TimeUnit.SECONDS);
                return p;
            }));
        } finally {
            System.clearProperty("rpcc.atomic.inDoubtMillis");
        }
    }

    @AfterEach
    void stop() throws Exception {
        release.countDown();
        cluster.close();
    }

    static void eventually(BooleanSupplier condition, String what) throws InterruptedException {
        long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (!condition.getAsBoolean()) {
            assertTrue(System.nanoTime() < until, "not within 30 s: " + what);
            Thread.sleep(20);
        }
    }

    @Test
    void participantsWhoseOriginatorDiedAbortAfterTheInDoubtWindow() throws Exception {
        Blackout dead = new Blackout();
        RpccClient client = cluster.client(c -> c.pipelineCustomizer(dead.customizer())
                .heartbeats(io.rpcc.client.Heartbeats.every(Duration.ofSeconds(1), Duration.ofSeconds(60))));
        client.startChain(ChainCall.along(StaticRoute.of(StaticRoute.hop("a", "add"), StaticRoute.hop("b", "addAndWait")),
                5L).atomic().timeout(Duration.ofSeconds(60)));
        assertTrue(entered.await(30, TimeUnit.SECONDS));
        eventually(() -> a.transactions().locksHeld() >= 1 && b.transactions().locksHeld() >= 1,
                "a voted and holds its lock; b runs its hop under its lock");
        dead.cut(); // the client goes silent: it decides nothing any more
        client.close(); // and its process ends: its port is closed
        release.countDown(); // b's hop ends and votes: nobody hears it
        eventually(() -> a.transactions().locksHeld() == 0 && b.transactions().locksHeld() == 0,
                "both participants aborted on their own");
        assertEquals(100L, X.get(), "nothing changed at a");
        assertEquals(100L, Y.get(), "nothing changed at b");
        assertEquals(0, a.transactions().activeParticipants());
        assertEquals(0, b.transactions().activeParticipants());
    }
}
