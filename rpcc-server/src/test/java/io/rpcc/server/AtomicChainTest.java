package io.rpcc.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.rpcc.client.ChainCall;
import io.rpcc.client.RpccClient;
import io.rpcc.core.ChainException;
import io.rpcc.core.ChainResult;
import io.rpcc.core.StaticRoute;
import io.rpcc.core.TransactionAbortedException;
import io.rpcc.server.atomic.Transaction;
import io.rpcc.server.atomic.TxVar;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Atomic chains on real nodes on loopback: two banks, {@code a} and {@code b}, each with one
 * balance in a {@link TxVar}; a transfer is an atomic chain along a static route (debit at one
 * bank, credit at the other). Commits change both balances together; a failing hop changes
 * nothing; conflicting transfers wound, restart and all commit, money conserved; a cancel or a
 * deadline commits nothing and frees the locks; a hop that waits for a lock holds no thread.
 */
@Timeout(value = 3, unit = TimeUnit.MINUTES)
class AtomicChainTest {
    static final long START = 1_000;
    static final TxVar<Long> A = TxVar.of("balance-a", START);
    static final TxVar<Long> B = TxVar.of("balance-b", START);
    static Cluster cluster;
    static RpccServer a;
    static RpccServer b;
    static RpccClient client;
    static RpccClient other;
    static ExecutorService twoThreads;
    static volatile CountDownLatch release = new CountDownLatch(0);
    static final AtomicInteger commitHooks = new AtomicInteger();

    static TxVar<Long> balance(String node) {
        return node.equals("a") ? A : B;
    }

    /** Adds {@code n} (may be negative) to this node's balance; refuses to go below zero. Returns the amount moved. */
    static Object add(long n) {
        TxVar<Long> v = balance(io.rpcc.core.ChainContext.current().node());
        long next = v.get() + n;
        if (next < 0) {
            throw new IllegalArgumentException("balance would be " + next);
        }
        v.set(next);
        Transaction.current().onCommit(commitHooks::incrementAndGet);
        return Math.abs(n);
    }

    @BeforeAll
    static void start() {
        cluster = new Cluster();
        twoThreads = Executors.newFixedThreadPool(2);
        a = cluster.server("a", s -> s.executor(twoThreads).service("debit", p -> add(-(Long) p))
                .service("credit", p -> add((Long) p))
                .service("hold", p -> {
                    add(-(Long) p);
                    release.await();
                    return p;
                }));
        b = cluster.server("b", s -> s.service("debit", p -> add(-(Long) p))
                .service("credit", p -> add((Long) p))
                .service("fail", p -> {
                    throw new IllegalStateException("the credit side is closed");
                })
                .service("block", p -> {
                    release.await();
                    return p;
                }));
        // (heartbeats generous: a loaded machine must not declare these chains broken)
        client = cluster.client(c -> c.heartbeats(
                io.rpcc.client.Heartbeats.every(Duration.ofSeconds(1), Duration.ofSeconds(60))));
        other = cluster.client(c -> c.heartbeats(
                io.rpcc.client.Heartbeats.every(Duration.ofSeconds(1), Duration.ofSeconds(60))));
    }

    @AfterAll
    static void stop() throws Exception {
        release.countDown();
        cluster.close();
        twoThreads.shutdownNow();
    }

    @BeforeEach
    void quiet() {
        eventually(() -> a.transactions().locksHeld() == 0 && b.transactions().locksHeld() == 0,
                "no locks held before the test");
    }

    static ChainCall transfer(String from, String to, long amount) {
        return ChainCall.along(StaticRoute.of(StaticRoute.hop(from, "debit"), StaticRoute.hop(to, "credit")), amount)
                .atomic().timeout(Duration.ofSeconds(60));
    }

    static void eventually(BooleanSupplier condition, String what) {
        long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() > until) {
                throw new AssertionError("not within 20 s: " + what + " (a: " + a.transactions() + ", b: "
                        + b.transactions() + ")");
            }
            try {
                Thread.sleep(10);
            } catch (InterruptedException e) {
                throw new AssertionError(e);
            }
        }
    }

    @Test
    void aTwoHopAtomicChainChangesBothServersTogether() {
        long a0 = A.get();
        long b0 = B.get();
        int hooks = commitHooks.get();
        ChainResult r = client.runChain(transfer("a", "b", 10));
        assertEquals(10L, r.value());
        assertEquals(a0 - 10, A.get(), "debited at a once the chain's future completes");
        assertEquals(b0 + 10, B.get(), "credited at b");
        assertEquals(hooks + 2, commitHooks.get(), "each hop's onCommit hook ran once");
        eventually(() -> a.transactions().locksHeld() == 0 && b.transactions().locksHeld() == 0, "locks freed");
    }

    @Test
    void aHopThatThrowsAbortsTheChainAndNothingChangesAnywhere() {
        long a0 = A.get();
        long b0 = B.get();
        ChainCall call = ChainCall.along(StaticRoute.of(StaticRoute.hop("a", "debit"), StaticRoute.hop("b", "fail")), 5L)
                .atomic();
        TransactionAbortedException e = assertThrows(TransactionAbortedException.class, () -> client.runChain(call));
        assertEquals(2, e.hop(), e.getMessage());
        assertEquals("b", e.host(), e.getMessage());
        assertTrue(e.getMessage().contains("the credit side is closed"), e.getMessage());
        assertInstanceOf(ChainException.class, e.getCause(), "the hop's own failure is the cause");
        eventually(() -> a.transactions().locksHeld() == 0 && b.transactions().locksHeld() == 0, "locks freed");
        assertEquals(a0, A.get(), "the debit at hop 1 was rolled back");
        assertEquals(b0, B.get());
    }

    @Test
    void transfersBothWaysWoundRestartAndAllCommitWithTheMoneyConserved() {
        long total = A.get() + B.get();
        long wounds = a.transactions().woundsSent() + b.transactions().woundsSent();
        List<CompletableFuture<ChainResult>> running = new ArrayList<>();
        for (int i = 0; i < 100; i++) {
            RpccClient c = i % 2 == 0 ? client : other;
            running.add(c.startChain(i % 2 == 0 ? transfer("a", "b", 1) : transfer("b", "a", 2)));
        }
        for (CompletableFuture<ChainResult> f : running) {
            f.join(); // every transfer commits, however often it was wounded and started again
        }
        assertEquals(total, A.get() + B.get(), "money is conserved");
        assertEquals(START * 2, A.get() + B.get());
        long wounded = a.transactions().woundsSent() + b.transactions().woundsSent() - wounds;
        System.out.println("100 conflicting transfers from two clients: " + wounded + " wounds");
        assertTrue(wounded > 0, "transfers both ways conflict: some were wounded and started again");
        eventually(() -> a.transactions().locksHeld() == 0 && b.transactions().locksHeld() == 0, "locks freed");
    }

    @Test
    void aCancelledAtomicChainCommitsNothingAndFreesItsLocks() throws Exception {
        long a0 = A.get();
        release = new CountDownLatch(1);
        try {
            ChainCall call = ChainCall.along(StaticRoute.of(StaticRoute.hop("a", "debit"), StaticRoute.hop("b", "block")),
                    7L).atomic();
            CompletableFuture<ChainResult> f = client.startChain(call);
            eventually(() -> b.transactions().activeParticipants() == 1, "the chain reached b");
            f.cancel(true);
            assertThrows(java.util.concurrent.CancellationException.class, f::join);
        } finally {
            release.countDown();
        }
        eventually(() -> a.transactions().locksHeld() == 0 && b.transactions().locksHeld() == 0
                && a.transactions().activeParticipants() == 0, "locks freed, participants gone");
        assertEquals(a0, A.get());
    }

    @Test
    void anAtomicChainPastItsDeadlineCommitsNothingAndFreesItsLocks() {
        long a0 = A.get();
        release = new CountDownLatch(1);
        try {
            ChainCall call = ChainCall.along(StaticRoute.of(StaticRoute.hop("a", "debit"), StaticRoute.hop("b", "block")),
                    3L).atomic().deadline(Duration.ofMillis(500));
            assertThrows(ChainException.class, () -> client.runChain(call));
        } finally {
            release.countDown();
        }
        eventually(() -> a.transactions().locksHeld() == 0 && b.transactions().locksHeld() == 0, "locks freed");
        assertEquals(a0, A.get());
    }

    @Test
    void hopsWaitingForALockHoldNoThread() {
        release = new CountDownLatch(1);
        long a0 = A.get();
        CompletableFuture<ChainResult> holder;
        List<CompletableFuture<ChainResult>> waiters = new ArrayList<>();
        try {
            // the holder takes a's lock and keeps its hop running (one of a's two threads)
            holder = client.startChain(ChainCall.along(StaticRoute.of(StaticRoute.hop("a", "hold"),
                    StaticRoute.hop("b", "credit")), 1L).atomic().timeout(Duration.ofSeconds(60)));
            eventually(() -> a.transactions().locksHeld() >= 1, "the holder holds a's balance");
            for (int i = 0; i < 20; i++) {
                waiters.add(client.startChain(transfer("a", "b", 1)));
            }
            // twenty hops wait at a, whose executor has two threads, one of them busy: they hold none
            eventually(() -> a.transactions().parkedHops() >= 1, "hops parked at a");
            eventually(() -> a.transactions().parkedHops() == 20 || waiters.stream().allMatch(CompletableFuture::isDone),
                    "twenty hops parked at once on one free thread");
        } finally {
            release.countDown();
        }
        holder.join();
        for (CompletableFuture<ChainResult> w : waiters) {
            w.join();
        }
        assertEquals(a0 - 21, A.get());
    }
}
