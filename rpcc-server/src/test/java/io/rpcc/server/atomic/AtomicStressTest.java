package io.rpcc.server.atomic;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.rpcc.core.internal.wire.TxKey;
import io.rpcc.core.internal.wire.TxStamp;
import io.rpcc.core.testing.StressDepth;
import io.rpcc.server.internal.atomic.HopRun;
import io.rpcc.server.internal.atomic.LocalTransactions;
import io.rpcc.server.internal.atomic.Participant;
import io.rpcc.server.internal.atomic.TransactionAborted;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ConcurrentSkipListSet;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Many simulated atomic chains over two nodes' engines, each node with a few accounts ({@link TxMap}),
 * a counter ({@link TxVar}) and keys that come and go (phantoms for whole-map reads); chains move money
 * within a node and between the nodes (withdrawn at one hop, deposited at a later one), with random
 * stamps: hop attempts on a small thread pool, parked hops resumed on it, wounds delivered after random
 * delays by a simulated originator (which aborts the victim unless it decided commit, and restarts it
 * as a new attempt with the same stamp), injected failures of service functions, and chains promoted
 * to primary in the middle of an attempt after a few restarts. Checks that every chain commits in the
 * end (no deadlock), that the committed results are serializable (replaying the chains one after the
 * other in commit order reads the same values and ends in the same state), that no money is made or
 * lost, that the transaction that comes first of all outstanding ones is never wounded, and that
 * nothing is left held at the end.
 *
 * <p>{@code -Drpcc.stress.transactions=N} sets the number of chains; {@code -Drpcc.stress.seed=N}
 * replays a run's workload (thread interleavings differ from run to run).
 */
class AtomicStressTest {
    private static final int TRANSACTIONS = StressDepth.size("rpcc.stress.transactions", 1_200, 6_000);
    private static final int IN_FLIGHT = 16;
    /** A chain restarted this often becomes its originator's primary. */
    private static final int PROMOTED_AFTER_RESTARTS = 8;
    private static final int NODES = 2;
    private static final List<String> ACCOUNTS = List.of("a", "b", "c");
    private static final List<String> TOGGLED = List.of("t0", "t1");
    private static final int OPENING = 100;
    private static final int TOTAL = OPENING * ACCOUNTS.size() * NODES;

    /** One operation of a hop; reads are recorded so that the serial replay can compare them. */
    sealed interface Op {
    }

    record Transfer(String from, String to, int amount) implements Op {
    }

    /** Takes up to {@code amount} from {@code account} into the chain's carried money. */
    record Withdraw(String account, int amount) implements Op {
    }

    /** Puts the chain's carried money into {@code account}. */
    record Deposit(String account) implements Op {
    }

    record Count() implements Op {
    }

    record Audit() implements Op {
    }

    record Toggle(String key) implements Op {
    }

    record Hop(int node, List<Op> ops, boolean failsFirst) {
    }

    /** The state the operations work on: the engine's (in a hop) or plain maps (the serial replay). */
    interface State {
        Integer get(String key);

        void put(String key, int value);

        void remove(String key);

        boolean contains(String key);

        Set<String> keys();

        int counter();

        void counter(int value);
    }

    private final ExecutorService pool = Executors.newFixedThreadPool(4);
    private final ScheduledExecutorService woundPost = Executors.newSingleThreadScheduledExecutor();

    @AfterEach
    void stop() throws InterruptedException {
        pool.shutdownNow();
        woundPost.shutdownNow();
        assertTrue(pool.awaitTermination(10, TimeUnit.SECONDS));
        assertTrue(woundPost.awaitTermination(10, TimeUnit.SECONDS));
    }

    /** Runs {@code ops} on {@code s}, recording what they read; {@code carry[0]} is the chain's money in transit. */
    static void apply(List<Op> ops, State s, List<Object> reads, int[] carry) {
        for (Op op : ops) {
            switch (op) {
                case Withdraw w -> {
                    int from = s.get(w.account());
                    reads.add(from);
                    int x = Math.min(from, w.amount());
                    s.put(w.account(), from - x);
                    carry[0] += x;
                }
                case Deposit d -> {
                    int to = s.get(d.account());
                    reads.add(to);
                    s.put(d.account(), to + carry[0]);
                    carry[0] = 0;
                }
                case Transfer t -> {
                    int from = s.get(t.from());
                    int to = s.get(t.to());
                    reads.add(from);
                    reads.add(to);
                    int x = Math.min(from, t.amount());
                    if (x > 0) {
                        s.put(t.from(), from - x);
                        s.put(t.to(), to + x);
                    }
                }
                case Count c -> {
                    int n = s.counter();
                    reads.add(n);
                    s.counter(n + 1);
                }
                case Audit a -> {
                    Set<String> keys = s.keys();
                    int sum = 0;
                    for (String k : keys) {
                        sum += s.get(k);
                    }
                    reads.add(keys.size());
                    reads.add(sum);
                }
                case Toggle t -> {
                    boolean there = s.contains(t.key());
                    reads.add(there);
                    if (there) {
                        s.remove(t.key());
                    } else {
                        s.put(t.key(), 0);
                    }
                }
            }
        }
    }

    /** One simulated chain and its originator's view of it. */
    final class Chain {
        final int id;
        /** Replaced by its primary stamp when it is promoted (driver's thread; read by diagnostics). */
        volatile TxStamp stamp;
        final List<Hop> hops;
        final Random random;
        final CompletableFuture<Void> finished = new CompletableFuture<>();
        // the driver's (one step at a time)
        int hopIndex;
        final List<List<Object>> reads = new ArrayList<>();
        final Set<Integer> visited = new HashSet<>();
        boolean failedOnce;
        int carry;
        volatile String phase = "not started";
        // guarded by decisions
        int attempt;
        boolean wounded;
        boolean decided;
        int restarts;

        Chain(int id, TxStamp stamp, List<Hop> hops, long seed) {
            this.id = id;
            this.stamp = stamp;
            this.hops = hops;
            this.random = new Random(seed);
        }

        TxKey key() {
            synchronized (decisions) {
                return new TxKey("origin", id, attempt);
            }
        }
    }

    private final Object decisions = new Object();
    private final List<Chain> commitOrder = new ArrayList<>();
    private final Map<Long, Chain> chains = new ConcurrentHashMap<>();
    private final ConcurrentSkipListSet<TxStamp> outstanding = new ConcurrentSkipListSet<>();
    private final ConcurrentLinkedQueue<String> violations = new ConcurrentLinkedQueue<>();
    private final AtomicLong restarts = new AtomicLong();
    private final AtomicLong parks = new AtomicLong();
    private final AtomicLong injectedFailures = new AtomicLong();
    private final AtomicLong promotions = new AtomicLong();
    private final LocalTransactions[] nodes = new LocalTransactions[NODES];
    /** Each node's state: its accounts (and keys that come and go) and a counter. */
    private final List<TxMap<String, Integer>> accounts = List.of(TxMap.create("accounts@0"), TxMap.create("accounts@1"));
    private final List<TxVar<Integer>> counters = List.of(TxVar.of("counter@0", 0), TxVar.of("counter@1", 0));
    private Random woundDelays;

    /** Node {@code n}'s state, seen by a hop there. */
    private State engineState(int n) {
        TxMap<String, Integer> accounts = this.accounts.get(n);
        TxVar<Integer> counter = counters.get(n);
        return new State() {
        @Override
        public Integer get(String key) {
            return Objects.requireNonNull(accounts.get(key), key);
        }

        @Override
        public void put(String key, int value) {
            accounts.put(key, value);
        }

        @Override
        public void remove(String key) {
            accounts.remove(key);
        }

        @Override
        public boolean contains(String key) {
            return accounts.containsKey(key);
        }

        @Override
        public Set<String> keys() {
            return accounts.keys();
        }

        @Override
        public int counter() {
            return counter.get();
        }

        @Override
        public void counter(int value) {
            counter.set(value);
        }
        };
    }

    @Test
    void manyChainsCommitSerializablyWithoutDeadlockOrLeaks() throws Exception {
        long seed = StressDepth.seed(AtomicStressTest.class);
        System.out.println("AtomicStressTest: " + TRANSACTIONS + " chains over " + NODES + " nodes, "
                + StressDepth.describe());
        Random random = new Random(seed);
        woundDelays = new Random(random.nextLong());
        for (int n = 0; n < NODES; n++) {
            nodes[n] = new LocalTransactions(this::wounded);
        }
        for (TxMap<String, Integer> m : accounts) {
            for (String a : ACCOUNTS) {
                m.putCommitted(a, OPENING);
            }
        }
        List<Chain> all = new ArrayList<>();
        for (int i = 0; i < TRANSACTIONS; i++) {
            // stamps: roughly in start order, with a spread so that later starters are often older; the
            // origin number (the chain's, here) makes every stamp different
            long order = i * 4L + random.nextInt(IN_FLIGHT * 8);
            Chain c = new Chain(i, new TxStamp(false, order, i), randomHops(random), random.nextLong());
            all.add(c);
            chains.put((long) i, c);
        }
        Semaphore room = new Semaphore(IN_FLIGHT);
        long started = System.nanoTime();
        for (Chain c : all) {
            if (!room.tryAcquire(60, TimeUnit.SECONDS)) {
                throw new AssertionError("no chain finished for 60 s (a deadlock?), seed " + seed + ": " + stuck(all));
            }
            outstanding.add(c.stamp);
            c.finished.whenComplete((v, e) -> room.release());
            pool.execute(() -> step(c));
        }
        try {
            CompletableFuture.allOf(all.stream().map(c -> c.finished).toArray(CompletableFuture[]::new))
                    .get(60, TimeUnit.SECONDS);
        } catch (TimeoutException e) {
            throw new AssertionError("chains did not all commit within 60 s of the last start (a deadlock?), seed "
                    + seed + ": " + stuck(all));
        }
        long millis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - started);
        long wounds = nodes[0].woundsSent() + nodes[1].woundsSent();
        System.out.printf("AtomicStressTest: %d chains committed in %d ms: %d wounds, %d restarts, %d parked hops,"
                + " %d injected failures, %d promotions%n", TRANSACTIONS, millis, wounds, restarts.get(), parks.get(),
                injectedFailures.get(), promotions.get());

        assertEquals(List.of(), List.copyOf(violations), "seed " + seed);
        int money = 0;
        for (TxMap<String, Integer> m : accounts) {
            money += m.committed().values().stream().mapToInt(Integer::intValue).sum();
        }
        assertEquals(TOTAL, money, "money in all accounts at the end, seed " + seed);
        assertEquals(TRANSACTIONS, commitOrder.size());
        replayInCommitOrder(seed);
        for (LocalTransactions n : nodes) {
            assertEquals(0, n.activeParticipants(), "participants left: " + n + ", seed " + seed);
            assertEquals(0, n.locksHeld(), "locks left: " + n + ", seed " + seed);
            assertEquals(0, n.parkedHops(), "parked hops left: " + n + ", seed " + seed);
        }
        for (int n = 0; n < NODES; n++) {
            assertEquals(0, accounts.get(n).state().keyLockCount(), "per-key locks left, seed " + seed);
            assertTrue(accounts.get(n).state().isMapLockIdle(), "map-wide lock left, seed " + seed);
            assertTrue(counters.get(n).state().isIdle(), "counter lock left, seed " + seed);
        }
        assertTrue(parks.get() > 0 && restarts.get() > 0, "the run should have made chains wait and restart");
    }

    private String stuck(List<Chain> all) {
        StringBuilder stuck = new StringBuilder(nodes[0] + ", " + nodes[1] + ", " + commitOrder.size() + " committed");
        for (Chain c : all) {
            if (!c.finished.isDone() && !c.phase.equals("not started")) {
                stuck.append("\n  chain ").append(c.id).append(' ').append(c.stamp).append(" attempt ")
                        .append(c.attempt).append(" hop ").append(c.hopIndex).append('/').append(c.hops.size())
                        .append(": ").append(c.phase);
            }
        }
        for (int n = 0; n < NODES; n++) {
            stuck.append('\n').append(accounts.get(n).state().describeLocks()).append('\n')
                    .append(counters.get(n).state().describeLock());
        }
        return stuck.toString();
    }

    private List<Hop> randomHops(Random r) {
        int n = 1 + r.nextInt(4);
        List<Hop> hops = new ArrayList<>(n);
        for (int h = 0; h < n; h++) {
            int ops = 1 + r.nextInt(2);
            List<Op> list = new ArrayList<>(ops);
            for (int o = 0; o < ops; o++) {
                int kind = r.nextInt(20);
                if (kind < 3) {
                    list.add(new Withdraw(ACCOUNTS.get(r.nextInt(ACCOUNTS.size())), 1 + r.nextInt(30)));
                } else if (kind < 13) {
                    String from = ACCOUNTS.get(r.nextInt(ACCOUNTS.size()));
                    String to = ACCOUNTS.get(r.nextInt(ACCOUNTS.size()));
                    while (to.equals(from)) {
                        to = ACCOUNTS.get(r.nextInt(ACCOUNTS.size()));
                    }
                    list.add(new Transfer(from, to, 1 + r.nextInt(30)));
                } else if (kind < 16) {
                    list.add(new Count());
                } else if (kind < 18) {
                    list.add(new Audit());
                } else {
                    list.add(new Toggle(TOGGLED.get(r.nextInt(TOGGLED.size()))));
                }
            }
            hops.add(new Hop(r.nextInt(NODES), list, r.nextInt(20) == 0));
        }
        // money withdrawn is deposited by a last hop, at either node
        hops.add(new Hop(r.nextInt(NODES), List.of(new Deposit(ACCOUNTS.get(r.nextInt(ACCOUNTS.size())))),
                r.nextInt(20) == 0));
        return hops;
    }

    /** The wound sink of every node: checks the victim is not the first outstanding, posts the wound to its originator. */
    private void wounded(TxKey victim, TxStamp victimStamp, TxKey by) {
        TxStamp first = outstanding.isEmpty() ? null : outstanding.first();
        if (victimStamp.equals(first)) {
            violations.add("the first outstanding transaction " + victim + " " + victimStamp + " was wounded by " + by);
        }
        long delayMicros;
        synchronized (woundDelays) {
            delayMicros = woundDelays.nextInt(4) == 0 ? 0 : woundDelays.nextInt(2_000);
        }
        woundPost.schedule(() -> originatorGetsWound(victim, by), delayMicros, TimeUnit.MICROSECONDS);
    }

    /** At the victim's originator: abort it on every node unless it decided commit or restarted already. */
    private void originatorGetsWound(TxKey victim, TxKey by) {
        Chain c = chains.get(victim.chainId());
        synchronized (decisions) {
            if (c.decided || c.attempt != victim.attempt() || c.wounded) {
                return;
            }
            c.wounded = true;
        }
        for (LocalTransactions n : nodes) {
            n.abort(victim, "wounded by " + by);
        }
    }

    /** Runs the chain's next hop attempt (on the pool). */
    private void step(Chain c) {
        try {
            stepOrThrow(c);
        } catch (Throwable t) {
            violations.add("chain " + c.id + " failed in the test's driver: " + t);
            c.finished.completeExceptionally(t);
        }
    }

    private void stepOrThrow(Chain c) {
        TxKey key = c.key();
        synchronized (decisions) {
            if (c.wounded) {
                restart(c);
                return;
            }
        }
        Hop hop = c.hops.get(c.hopIndex);
        LocalTransactions node = nodes[hop.node()];
        c.phase = "running " + key + " hop " + c.hopIndex + " at node " + hop.node() + ": " + hop.ops();
        Participant p;
        try {
            if (c.restarts >= PROMOTED_AFTER_RESTARTS && !c.stamp.primary()) {
                promote(c);
            }
            p = node.join(key, c.stamp);
        } catch (IllegalStateException ended) {
            restart(c);
            return;
        }
        c.visited.add(hop.node());
        boolean fail = hop.failsFirst() && !c.failedOnce;
        List<Object> reads = new ArrayList<>();
        int[] carry = new int[1];
        State state = engineState(hop.node());
        HopRun<Object> run = node.run(p, () -> {
            reads.clear();
            carry[0] = c.carry;
            apply(hop.ops(), state, reads, carry);
            if ((reads.size() & 1) == 0) {
                LockSupport.parkNanos(1_000);
            }
            if (fail) {
                throw new IllegalStateException("injected failure");
            }
            return null;
        });
        switch (run) {
            case HopRun.Done<Object> d -> {
                c.reads.add(List.copyOf(reads));
                c.carry = carry[0];
                c.hopIndex++;
                if (c.hopIndex < c.hops.size()) {
                    pool.execute(() -> step(c));
                } else {
                    end(c, key);
                }
            }
            case HopRun.Failed<Object> f -> {
                if (f.error() instanceof TransactionAborted) {
                    restart(c);
                } else if (fail) {
                    c.failedOnce = true;
                    injectedFailures.incrementAndGet();
                    pool.execute(() -> step(c)); // the chain's failure handler runs the hop again
                } else {
                    throw new AssertionError("hop failed", f.error());
                }
            }
            case HopRun.Parked<Object> k -> {
                parks.incrementAndGet();
                c.phase = "parked " + key + " hop " + c.hopIndex + " at node " + hop.node() + ": " + hop.ops();
                k.resume().whenComplete((v, e) -> pool.execute(() -> {
                    if (e != null) {
                        restart(c);
                    } else {
                        step(c);
                    }
                }));
            }
        }
    }

    /**
     * Makes the chain its originator's primary (each chain has an originator number of its own here),
     * in the middle of an attempt: its next hops bring the primary stamp to participants that know the
     * older one, whose parked requests then come first and may wound.
     */
    private void promote(Chain c) {
        TxStamp old = c.stamp;
        TxStamp primary = old.promoted(old.order());
        synchronized (outstanding) {
            outstanding.add(primary);
            c.stamp = primary;
            outstanding.remove(old);
        }
        promotions.incrementAndGet();
    }

    /** The chain's last hop is done: votes, then the originator's decision and the commit fan-out. */
    private void end(Chain c, TxKey key) {
        c.phase = "ending " + key;
        for (int n : c.visited) {
            Participant p = nodes[n].find(key);
            if (p == null) {
                restart(c); // aborted (wounded) meanwhile
                return;
            }
            if (!nodes[n].prepare(p).yes()) {
                restart(c);
                return;
            }
        }
        synchronized (decisions) {
            if (c.wounded) {
                restart(c);
                return;
            }
            c.decided = true;
            commitOrder.add(c);
        }
        for (int n : c.visited) {
            nodes[n].commit(key);
        }
        outstanding.remove(c.stamp);
        c.finished.complete(null);
    }

    /** A new attempt with the same stamp, after backing out of the old one everywhere. */
    private void restart(Chain c) {
        TxKey old = c.key();
        c.phase = "restarting " + old;
        for (LocalTransactions n : nodes) {
            n.abort(old, "restarted");
        }
        synchronized (decisions) {
            c.attempt++;
            c.wounded = false;
            c.restarts++;
        }
        restarts.incrementAndGet();
        c.hopIndex = 0;
        c.carry = 0;
        c.reads.clear();
        c.visited.clear();
        pool.execute(() -> step(c));
    }

    /** Runs the committed chains one after the other in commit order: same reads, same final state. */
    private void replayInCommitOrder(long seed) {
        List<Map<String, Integer>> maps = new ArrayList<>();
        int[] counts = new int[NODES];
        List<State> plain = new ArrayList<>();
        for (int n = 0; n < NODES; n++) {
            Map<String, Integer> map = new HashMap<>();
            for (String a : ACCOUNTS) {
                map.put(a, OPENING);
            }
            maps.add(map);
            int node = n;
            plain.add(new State() {
                @Override
                public Integer get(String key) {
                    return map.get(key);
                }

                @Override
                public void put(String key, int value) {
                    map.put(key, value);
                }

                @Override
                public void remove(String key) {
                    map.remove(key);
                }

                @Override
                public boolean contains(String key) {
                    return map.containsKey(key);
                }

                @Override
                public Set<String> keys() {
                    return Set.copyOf(map.keySet());
                }

                @Override
                public int counter() {
                    return counts[node];
                }

                @Override
                public void counter(int value) {
                    counts[node] = value;
                }
            });
        }
        for (int i = 0; i < commitOrder.size(); i++) {
            Chain c = commitOrder.get(i);
            assertEquals(c.hops.size(), c.reads.size(), "chain " + c.id + "'s kept hops");
            int[] carry = new int[1];
            for (int h = 0; h < c.hops.size(); h++) {
                List<Object> reads = new ArrayList<>();
                Hop hop = c.hops.get(h);
                apply(hop.ops(), plain.get(hop.node()), reads, carry);
                int at = i;
                int hopIndex = h;
                assertEquals(reads, c.reads.get(h), () -> "chain " + c.id + " (committed " + at + "th) hop " + hopIndex
                        + " read other values than it reads when the committed chains run one after the other:"
                        + " not serializable, seed " + seed);
            }
        }
        for (int n = 0; n < NODES; n++) {
            assertEquals(maps.get(n), accounts.get(n).committed(), "final accounts at node " + n + ", seed " + seed);
            assertEquals(counts[n], counters.get(n).committed(), "final counter at node " + n + ", seed " + seed);
        }
    }
}
