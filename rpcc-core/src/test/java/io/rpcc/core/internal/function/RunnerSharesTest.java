package io.rpcc.core.internal.function;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import io.rpcc.core.internal.function.RunnerShares.Outcome;
import io.rpcc.core.testing.StressDepth;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.BooleanSupplier;
import java.util.function.Supplier;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The function runners' slots shared per party ({@link RunnerShares}): a party holds at most
 * {@code slots - 1} (all if there is one), waits at most {@code maxQueued / 4} (at least one, none if
 * there is no queue), a freed slot goes to the waiting party that holds the fewest, the earliest of
 * its invocations first; and, under many threads with random hold times and timeouts, the bounds hold
 * at every moment and no slot leaks.
 */
@Timeout(value = 2, unit = TimeUnit.MINUTES)
class RunnerSharesTest {
    private static final long LONG = TimeUnit.SECONDS.toNanos(30);

    private static void eventually(BooleanSupplier condition, Supplier<String> what) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
        while (!condition.getAsBoolean()) {
            assertTrue(System.nanoTime() < deadline, what);
            Thread.sleep(2);
        }
    }

    /** Starts {@code party}'s acquire on a thread of its own (it may wait). */
    private static CompletableFuture<Outcome> acquireAsync(RunnerShares shares, String party, long timeoutNanos) {
        CompletableFuture<Outcome> f = new CompletableFuture<>();
        Thread.ofPlatform().daemon().name("acquire-" + party).start(() -> {
            try {
                f.complete(shares.acquire(party, timeoutNanos));
            } catch (Throwable t) {
                f.completeExceptionally(t);
            }
        });
        return f;
    }

    /** Starts {@code party}'s acquire and waits until it is in the queue. */
    private static CompletableFuture<Outcome> queue(RunnerShares shares, String party) throws InterruptedException {
        int before = shares.snapshot().waiting();
        CompletableFuture<Outcome> f = acquireAsync(shares, party, LONG);
        eventually(() -> shares.snapshot().waiting() == before + 1 || f.isDone(),
                () -> party + " waits: " + shares.snapshot());
        assertFalse(f.isDone(), party + " was answered at once: " + f.getNow(null));
        return f;
    }

    private static Outcome outcome(CompletableFuture<Outcome> f) throws Exception {
        return f.get(20, TimeUnit.SECONDS);
    }

    /** The bounds that hold whenever the lock is free. */
    private static void assertInvariants(RunnerShares.Snapshot s, int slots, int maxQueued, RunnerShares shares) {
        String at = s.toString();
        assertTrue(s.inUse() >= 0 && s.inUse() <= slots, "slots in use within [0, " + slots + "]: " + at);
        assertEquals(s.inUse(), s.running().values().stream().mapToInt(Integer::intValue).sum(), "in use = held: " + at);
        for (int held : s.running().values()) {
            assertTrue(held <= shares.perPartySlots(), "a party within its " + shares.perPartySlots() + " slots: " + at);
        }
        assertTrue(s.waiting() <= maxQueued, "the queue within " + maxQueued + ": " + at);
        assertEquals(s.waiting(), s.queued().values().stream().mapToInt(Integer::intValue).sum(), "queued = waiting: " + at);
        for (Map.Entry<String, Integer> q : s.queued().entrySet()) {
            assertTrue(q.getValue() <= shares.perPartyQueued(), "a party within its " + shares.perPartyQueued()
                    + " of the queue: " + at);
            // nobody waits for a slot it could have: all are taken, or its party holds its most
            assertTrue(s.inUse() == slots || s.running().getOrDefault(q.getKey(), 0) == shares.perPartySlots(),
                    q.getKey() + " waits while a slot it may take is free: " + at);
        }
    }

    @Test
    void sharesFollowTheSlotsAndTheQueue() {
        assertEquals(2, new RunnerShares(3, 8).perPartySlots());
        assertEquals(2, new RunnerShares(3, 8).perPartyQueued());
        assertEquals(1, new RunnerShares(1, 64).perPartySlots(), "one slot: the party may have it");
        assertEquals(16, new RunnerShares(1, 64).perPartyQueued());
        assertEquals(1, new RunnerShares(2, 3).perPartyQueued(), "at least one may wait");
        assertEquals(0, new RunnerShares(2, 0).perPartyQueued(), "no queue: nobody waits");
        assertEquals(23, new RunnerShares(24, 96).perPartySlots());
        assertEquals(24, new RunnerShares(24, 96).perPartyQueued());
    }

    @Test
    void aPartyHoldsAllButOneSlotAndAnotherPartyIsGrantedTheLastAtOnce() throws Exception {
        RunnerShares shares = new RunnerShares(3, 8);
        assertEquals(Outcome.GRANTED, shares.acquire("mallory", 0));
        assertEquals(Outcome.GRANTED, shares.acquire("mallory", 0));
        assertEquals(Outcome.TIMED_OUT, shares.acquire("mallory", 0), "a third slot is not mallory's, though free");
        assertEquals(Outcome.GRANTED, shares.acquire("alice", 0), "alice is granted the slot left at once");
        assertEquals(3, shares.inUse());
        assertEquals(Outcome.TIMED_OUT, shares.acquire("bob", TimeUnit.MILLISECONDS.toNanos(20)), "all are taken");
        shares.release("alice");
        assertEquals(Outcome.GRANTED, shares.acquire("bob", 0));
        shares.release("bob");
        shares.release("mallory");
        shares.release("mallory");
        assertEquals(new RunnerShares.Snapshot(0, Map.of(), Map.of(), 0), shares.snapshot());
    }

    @Test
    void oneSlotIsAnyPartysAndAnotherWaitsForIt() throws Exception {
        RunnerShares shares = new RunnerShares(1, 4);
        assertEquals(Outcome.GRANTED, shares.acquire("mallory", 0));
        CompletableFuture<Outcome> alice = queue(shares, "alice");
        shares.release("mallory");
        assertEquals(Outcome.GRANTED, outcome(alice));
        assertEquals(Map.of("alice", 1), shares.snapshot().running());
        shares.release("alice");
        assertEquals(0, shares.inUse());
    }

    @Test
    void aPartyWaitsInAQuarterOfTheQueueAtMost() throws Exception {
        RunnerShares shares = new RunnerShares(2, 8); // a party: 1 slot, 2 waiting
        assertEquals(Outcome.GRANTED, shares.acquire("mallory", 0));
        assertEquals(Outcome.GRANTED, shares.acquire("alice", 0));
        List<CompletableFuture<Outcome>> waiting = new ArrayList<>();
        waiting.add(queue(shares, "mallory"));
        waiting.add(queue(shares, "mallory"));
        assertEquals(Outcome.QUEUE_FULL, shares.acquire("mallory", LONG), "mallory's share of the queue is full");
        for (String party : List.of("alice", "alice", "bob", "bob", "carol", "carol")) {
            waiting.add(queue(shares, party));
        }
        assertEquals(8, shares.snapshot().waiting());
        assertEquals(Outcome.QUEUE_FULL, shares.acquire("dave", LONG), "the queue is full");
        assertInvariants(shares.snapshot(), 2, 8, shares);
        // everyone is served in the end, and nothing is left held
        shares.release("mallory");
        shares.release("alice");
        for (int served = 0; served < waiting.size(); served++) {
            eventually(() -> shares.snapshot().inUse() > 0, () -> "a waiter is granted: " + shares.snapshot());
            RunnerShares.Snapshot s = shares.snapshot();
            assertInvariants(s, 2, 8, shares);
            shares.release(s.running().keySet().iterator().next());
        }
        for (CompletableFuture<Outcome> f : waiting) {
            assertEquals(Outcome.GRANTED, outcome(f));
        }
        eventually(() -> shares.inUse() == 0, () -> "all released: " + shares.snapshot());
        assertEquals(new RunnerShares.Snapshot(0, Map.of(), Map.of(), 0), shares.snapshot());
    }

    @Test
    void withoutAQueueABusyPoolRefusesAtOnce() throws Exception {
        RunnerShares shares = new RunnerShares(2, 0);
        assertEquals(Outcome.GRANTED, shares.acquire("a", 0));
        assertEquals(Outcome.QUEUE_FULL, shares.acquire("a", LONG), "over its share, and no queue");
        assertEquals(Outcome.GRANTED, shares.acquire("b", 0));
        assertEquals(Outcome.QUEUE_FULL, shares.acquire("c", LONG), "all taken, and no queue");
        shares.release("a");
        shares.release("b");
        assertEquals(0, shares.inUse());
    }

    @Test
    void aFreedSlotGoesToTheWaitingPartyHoldingTheFewestEarliestFirst() throws Exception {
        RunnerShares shares = new RunnerShares(3, 16); // a party: 2 slots, 4 waiting
        assertEquals(Outcome.GRANTED, shares.acquire("a", 0));
        assertEquals(Outcome.GRANTED, shares.acquire("a", 0));
        assertEquals(Outcome.GRANTED, shares.acquire("b", 0));
        CompletableFuture<Outcome> a3 = queue(shares, "a");
        CompletableFuture<Outcome> c1 = queue(shares, "c");
        CompletableFuture<Outcome> b2 = queue(shares, "b");
        CompletableFuture<Outcome> c2 = queue(shares, "c");

        shares.release("b"); // a holds its most; b and c hold none: c asked first
        assertEquals(Outcome.GRANTED, outcome(c1));
        assertEquals(Map.of("a", 2, "c", 1), shares.snapshot().running());

        shares.release("a"); // a holds 1, c 1, b none: b
        assertEquals(Outcome.GRANTED, outcome(b2));
        assertEquals(Map.of("a", 1, "b", 1, "c", 1), shares.snapshot().running());

        shares.release("c"); // a holds 1, c none: c, though a asked earlier
        assertEquals(Outcome.GRANTED, outcome(c2));
        assertFalse(a3.isDone());

        shares.release("b"); // a alone waits
        assertEquals(Outcome.GRANTED, outcome(a3));
        assertEquals(Map.of("a", 2, "c", 1), shares.snapshot().running());
        shares.release("a");
        shares.release("a");
        shares.release("c");
        assertEquals(new RunnerShares.Snapshot(0, Map.of(), Map.of(), 0), shares.snapshot());
    }

    @Test
    void aWaiterThatTimesOutLeavesTheQueue() throws Exception {
        RunnerShares shares = new RunnerShares(1, 4);
        assertEquals(Outcome.GRANTED, shares.acquire("a", 0));
        assertEquals(Outcome.TIMED_OUT, shares.acquire("b", TimeUnit.MILLISECONDS.toNanos(30)));
        assertEquals(0, shares.snapshot().waiting());
        assertEquals(Map.of(), shares.snapshot().queued());
        shares.release("a");
        assertEquals(new RunnerShares.Snapshot(0, Map.of(), Map.of(), 0), shares.snapshot());
    }

    /**
     * A waiter interrupted (its hop cancelled) just as a slot is handed to it: either it is granted
     * the slot, or the slot is not left held by nobody. Run many times to meet the race.
     */
    @Test
    void anInterruptedWaiterLeaksNoSlot() throws Exception {
        Random random = new Random(7);
        RunnerShares shares = new RunnerShares(1, 4);
        for (int round = 0; round < 2_000; round++) {
            assertEquals(Outcome.GRANTED, shares.acquire("a", 0), "round " + round + ": " + shares.snapshot());
            CompletableFuture<Outcome> waiter = new CompletableFuture<>();
            CountDownLatch started = new CountDownLatch(1);
            Thread t = Thread.ofPlatform().daemon().start(() -> {
                started.countDown();
                try {
                    waiter.complete(shares.acquire("b", LONG));
                } catch (InterruptedException e) {
                    waiter.completeExceptionally(e);
                }
            });
            started.await();
            while (shares.snapshot().waiting() == 0 && !waiter.isDone()) {
                Thread.onSpinWait();
            }
            t.interrupt();
            for (int spin = random.nextInt(2_000); spin > 0; spin--) {
                Thread.onSpinWait();
            }
            shares.release("a");
            t.join(20_000);
            if (!waiter.isCompletedExceptionally()) {
                assertEquals(Outcome.GRANTED, waiter.join());
                shares.release("b");
            }
            assertEquals(new RunnerShares.Snapshot(0, Map.of(), Map.of(), 0), shares.snapshot(),
                    "round " + round + ": nothing held or waiting");
        }
    }

    /**
     * Many threads of 3 to 6 parties acquire and release with random hold times and timeouts, over many
     * thousands of operations: at every moment (a checker samples, and each thread checks while it holds
     * a slot) the slots in use, each party's slots and queue, and the queue are within their bounds, and
     * nobody waits while a slot it may take is free; every acquire ends granted, refused or timed out,
     * every granted one is released, and at the end nothing is held or waiting.
     */
    @Test
    void randomizedStressKeepsEveryBoundAndLeaksNothing() throws Exception {
        long seed = StressDepth.seed(RunnerSharesTest.class);
        Random configs = new Random(seed);
        int[][] shapes = {{1, 4}, {2, 0}, {3, 8}, {4, 16}, {6, 7}};
        for (int[] shape : shapes) {
            int parties = 3 + configs.nextInt(4);
            stress(shape[0], shape[1], parties, 24, 600, configs.nextLong(), "seed " + seed + ", slots " + shape[0]
                    + ", queue " + shape[1] + ", parties " + parties);
        }
    }

    private static void stress(int slots, int maxQueued, int parties, int threads, int opsPerThread, long seed,
                               String what) throws Exception {
        RunnerShares shares = new RunnerShares(slots, maxQueued);
        Map<Outcome, AtomicLong> outcomes = new EnumMap<>(Outcome.class);
        for (Outcome o : Outcome.values()) {
            outcomes.put(o, new AtomicLong());
        }
        ConcurrentLinkedQueue<Throwable> failures = new ConcurrentLinkedQueue<>();
        AtomicBoolean running = new AtomicBoolean(true);
        AtomicLong checks = new AtomicLong();
        Thread checker = Thread.ofPlatform().daemon().name("shares-checker").start(() -> {
            while (running.get()) {
                try {
                    assertInvariants(shares.snapshot(), slots, maxQueued, shares);
                    checks.incrementAndGet();
                } catch (Throwable t) {
                    failures.add(t);
                    return;
                }
            }
        });
        ExecutorService pool = Executors.newFixedThreadPool(threads);
        List<CompletableFuture<Void>> workers = new ArrayList<>();
        for (int t = 0; t < threads; t++) {
            Random random = new Random(seed + t);
            String party = "party-" + (t % parties);
            workers.add(CompletableFuture.runAsync(() -> {
                try {
                    for (int op = 0; op < opsPerThread; op++) {
                        long timeout = random.nextInt(4) == 0 ? 0 : TimeUnit.MICROSECONDS.toNanos(random.nextInt(3_000));
                        Outcome o = shares.acquire(party, timeout);
                        if (o == null) {
                            fail("an acquire ended without an outcome");
                        }
                        outcomes.get(o).incrementAndGet();
                        if (o == Outcome.GRANTED) {
                            try {
                                RunnerShares.Snapshot s = shares.snapshot();
                                assertTrue(s.running().getOrDefault(party, 0) >= 1, party + " holds its slot: " + s);
                                assertInvariants(s, slots, maxQueued, shares);
                                int hold = random.nextInt(10);
                                if (hold < 6) {
                                    for (int spin = random.nextInt(5_000); spin > 0; spin--) {
                                        Thread.onSpinWait();
                                    }
                                } else {
                                    Thread.sleep(0, random.nextInt(1_000_000));
                                }
                            } finally {
                                shares.release(party);
                            }
                        }
                    }
                } catch (Throwable e) {
                    failures.add(e);
                }
            }, pool));
        }
        try {
            CompletableFuture.allOf(workers.toArray(CompletableFuture[]::new)).get(90, TimeUnit.SECONDS);
        } finally {
            running.set(false);
            pool.shutdownNow();
            checker.join(10_000);
        }
        if (!failures.isEmpty()) {
            AssertionError e = new AssertionError(what + ": " + failures.size() + " failures, the first: " + failures.peek());
            failures.forEach(e::addSuppressed);
            throw e;
        }
        long all = outcomes.values().stream().mapToLong(AtomicLong::get).sum();
        assertEquals((long) threads * opsPerThread, all, what + ": every acquire ended: " + outcomes);
        assertTrue(outcomes.get(Outcome.GRANTED).get() > 0, what + ": " + outcomes);
        assertTrue(checks.get() > 0, what + ": the checker ran");
        assertEquals(0, shares.inUse(), what + ": nothing leaked: " + shares.snapshot());
        assertEquals(new RunnerShares.Snapshot(0, Map.of(), Map.of(), 0), shares.snapshot(), what);
    }
}
