package io.rpcc.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.rpcc.client.ChainCall;
import io.rpcc.client.RpccClient;
import io.rpcc.core.ChainContext;
import io.rpcc.core.ChainResult;
import io.rpcc.core.StaticRoute;
import io.rpcc.core.testing.StressDepth;
import io.rpcc.server.atomic.TxMap;
import io.rpcc.testkit.WanCluster;
import io.rpcc.testkit.WanTopology;
import io.rpcc.testkit.history.History;
import io.rpcc.testkit.history.Outcome;
import io.rpcc.testkit.history.SerializabilityChecker;
import io.rpcc.testkit.history.Verdict;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReferenceArray;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Thousands of conflicting atomic chains under random faults, judged by {@link SerializabilityChecker}.
 *
 * <p>Three data servers {@code d1..d3} (sites {@code s1..s3}) each hold a {@link TxMap} of three keys whose
 * values are lists (comma-joined): every write appends an element unique to its chain, so a read's last
 * element names the version it saw and each key's final list is its whole version order (recorded as the
 * install log). A chain is a static route of 1-4 data hops over random servers, sometimes with the stateless
 * relay {@code r} on its path; each data hop reads or read-modify-writes 1-2 of its server's keys, as planned
 * by the client, and the carried value brings the committed attempt's reads home. Faults at random moments:
 * cancels of chains in flight, deadlines that expire, link cuts and heals between sites, kills and restarts of
 * the relay, and (unless {@code -Drpcc.stress.atomic.clientKills=false}) an originator closed mid-flight and
 * replaced by a new client. A chain whose client saw a result is COMMITTED; one whose (live) client saw a
 * failure or a cancel is ABORTED (strict: a cancel that won must have aborted); one whose client was killed
 * is UNKNOWN.
 *
 * <p>Asserts: no anomaly, every committed read is a prefix of its key's final list, no lock held and no
 * participant left at the end, and a fresh chain still commits afterwards. Size: 1,500 chains (about 1.5 minutes
 * on 2 cores, some 6,000 dependency edges checked, dozens of each fault; the nine keys' locks set the pace: twice
 * the workers run no more chains a second), 10,000 under
 * {@code -Drpcc.stress=long} (or {@code -Drpcc.stress.atomic.chains=N}); {@code -Drpcc.stress.seed=N} replays
 * the plans and fault draws (not the threads' timing).
 */
@Timeout(value = 30, unit = TimeUnit.MINUTES) // about 11 chains a second under these faults on 2 cores
class AtomicHistoryStressTest {
    static final int CHAINS = StressDepth.size("rpcc.stress.atomic.chains", 1_500, 10_000);
    static final boolean CLIENT_KILLS = !"false".equals(System.getProperty("rpcc.stress.atomic.clientKills"));
    static final int WORKERS = 12;
    static final int KEYS = 3;
    static final List<String> DATA = List.of("d1", "d2", "d3");
    static final Map<String, TxMap<String, String>> MAPS = new ConcurrentHashMap<>();

    static {
        // a participant whose originator was killed after its vote aborts on its own after this window (30 s
        // by default): short here, so that the keys an orphan holds come free within the run
        System.setProperty("rpcc.atomic.inDoubtMillis", "2000");
    }

    /**
     * The service at every server. Carried value: {@code tx;cursor;plan;reads}. Plan: steps joined by
     * {@code /}, a step is {@code server:ops} with ops like {@code r0} (read key 0) and {@code w2}
     * (read-modify-write key 2) joined by {@code ,}. Reads: the lists observed, joined by {@code |}, in plan
     * order. Pure apart from the TxMap: it runs again from its start when it waited for a lock.
     */
    static Object ops(Object params) {
        String[] c = ((String) params).split(";", -1);
        String tx = c[0];
        int cursor = Integer.parseInt(c[1]);
        String[] steps = c[2].split("/");
        StringBuilder reads = new StringBuilder(c[3]);
        String node = ChainContext.current().node();
        String[] step = steps[cursor].split(":", -1);
        if (!step[0].equals(node)) {
            throw new IllegalStateException("step " + cursor + " of " + tx + " is for " + step[0] + ", ran at " + node);
        }
        TxMap<String, String> map = MAPS.get(node);
        if (!step[1].isEmpty()) {
            String[] opList = step[1].split(",");
            for (int i = 0; i < opList.length; i++) {
                String key = "k" + opList[i].charAt(1);
                String seen = map.get(key);
                reads.append(seen == null ? "" : seen).append('|');
                if (opList[i].charAt(0) == 'w') {
                    String element = element(tx, cursor, i);
                    map.put(key, seen == null || seen.isEmpty() ? element : seen + "," + element);
                }
            }
        }
        return tx + ";" + (cursor + 1) + ";" + c[2] + ";" + reads;
    }

    static String element(String tx, int step, int op) {
        return tx + "." + step + "." + op;
    }

    static String txOf(String element) {
        return element.substring(0, element.indexOf('.'));
    }

    static String lastOf(String list) {
        return list.isEmpty() ? null : list.substring(list.lastIndexOf(',') + 1);
    }

    @RegisterExtension
    static final WanCluster lab = WanCluster.of(topology());

    static WanTopology topology() {
        List<String> sites = List.of("c", "r", "s1", "s2", "s3");
        WanTopology.Builder b = WanTopology.builder();
        sites.forEach(b::site);
        for (int i = 0; i < sites.size(); i++) {
            for (int j = i + 1; j < sites.size(); j++) {
                b.link(sites.get(i), sites.get(j), Duration.ofMillis(1), 1_000_000_000);
            }
        }
        return b.intraSite(Duration.ofMillis(1), 1_000_000_000).build();
    }

    final History history = new History();
    final AtomicReferenceArray<RpccClient> clients = new AtomicReferenceArray<>(3);
    final AtomicInteger clientGeneration = new AtomicInteger();
    final Map<String, List<String>> committedReads = new ConcurrentHashMap<>();
    final AtomicInteger committed = new AtomicInteger();
    final AtomicInteger aborted = new AtomicInteger();
    final AtomicInteger unknown = new AtomicInteger();
    final AtomicInteger hung = new AtomicInteger();
    final AtomicInteger cancels = new AtomicInteger();
    final AtomicInteger deadlines = new AtomicInteger();
    final Map<String, AtomicInteger> faults = new ConcurrentHashMap<>();
    /** Per chain, how its client saw it end, printed for the chains an anomaly names. */
    final Map<String, String> seen = new ConcurrentHashMap<>();
    volatile boolean running = true;

    RpccClient newClient() {
        return lab.client("origin-" + clientGeneration.incrementAndGet(), "c");
    }

    record Planned(String tx, List<String[]> steps, StaticRoute route) {}

    static Planned plan(String tx, Random rnd) {
        int hops = 1 + rnd.nextInt(4);
        List<String[]> steps = new ArrayList<>();
        List<StaticRoute.Hop> route = new ArrayList<>();
        int relayAt = rnd.nextInt(4) == 0 ? rnd.nextInt(hops + 1) : -1;
        for (int h = 0; h <= hops; h++) {
            if (h == relayAt) {
                steps.add(new String[] {"r", ""});
                route.add(StaticRoute.hop("r", "ops"));
            }
            if (h == hops) {
                break;
            }
            String server = DATA.get(rnd.nextInt(DATA.size()));
            int n = 1 + rnd.nextInt(2);
            StringBuilder ops = new StringBuilder();
            for (int i = 0; i < n; i++) {
                ops.append(i == 0 ? "" : ",").append(rnd.nextInt(10) < 4 ? 'r' : 'w').append(rnd.nextInt(KEYS));
            }
            steps.add(new String[] {server, ops.toString()});
            route.add(StaticRoute.hop(server, "ops"));
        }
        return new Planned(tx, steps, StaticRoute.of(route));
    }

    static String planText(Planned p) {
        StringBuilder s = new StringBuilder();
        for (String[] step : p.steps()) {
            s.append(s.isEmpty() ? "" : "/").append(step[0]).append(':').append(step[1]);
        }
        return p.tx() + ";0;" + s + ";";
    }

    /** Records a chain's operations: its reads from {@code result} if it committed, its writes always. */
    void record(Planned p, String result, Outcome outcome) {
        String[] reads = result == null ? null : result.split(";", -1)[3].split("\\|", -1);
        int r = 0;
        for (int s = 0; s < p.steps().size(); s++) {
            String[] step = p.steps().get(s);
            if (step[1].isEmpty()) {
                continue;
            }
            String[] ops = step[1].split(",");
            for (int i = 0; i < ops.length; i++) {
                String key = step[0] + "/k" + ops[i].charAt(1);
                if (reads != null) {
                    String seen = reads[r++];
                    history.read(p.tx(), key, lastOf(seen));
                    committedReads.computeIfAbsent(key, k -> java.util.Collections.synchronizedList(new ArrayList<>()))
                            .add(seen);
                }
                if (ops[i].charAt(0) == 'w') {
                    history.write(p.tx(), key, element(p.tx(), s, i));
                }
            }
        }
        history.end(p.tx(), outcome);
    }

    void runOne(int index, Random rnd, ScheduledExecutorService timer) {
        Planned p = plan("T" + index, rnd);
        int slot = rnd.nextInt(3);
        RpccClient client = clients.get(slot);
        ChainCall call = ChainCall.along(p.route(), planText(p)).atomic().timeout(Duration.ofSeconds(20));
        int fault = rnd.nextInt(100);
        if (fault < 4) {
            deadlines.incrementAndGet();
            call = call.deadline(Duration.ofMillis(2 + rnd.nextInt(30)));
        }
        CompletableFuture<ChainResult> f;
        try {
            f = client.startChain(call);
        } catch (RuntimeException closed) {
            record(p, null, Outcome.UNKNOWN); // the client was killed as the chain started
            unknown.incrementAndGet();
            return;
        }
        if (fault >= 4 && fault < 9) {
            cancels.incrementAndGet();
            timer.schedule(() -> f.cancel(true), rnd.nextInt(20), TimeUnit.MILLISECONDS);
        }
        Outcome outcome;
        String result = null;
        try {
            result = (String) f.get(60, TimeUnit.SECONDS).value();
            outcome = Outcome.COMMITTED;
        } catch (TimeoutException e) {
            hung.incrementAndGet();
            outcome = Outcome.UNKNOWN;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            outcome = Outcome.UNKNOWN;
        } catch (CancellationException | ExecutionException e) {
            outcome = clients.get(slot) == client ? Outcome.ABORTED : Outcome.UNKNOWN;
            Throwable cause = e instanceof ExecutionException ? e.getCause() : e;
            seen.put(p.tx(), "failed: " + cause);
        }
        if (outcome == Outcome.ABORTED && clients.get(slot) != client) {
            outcome = Outcome.UNKNOWN; // the originator was killed meanwhile: its failure may be the kill's
        }
        seen.merge(p.tx(), "client " + client.name() + ", " + (fault < 4 ? "deadline" : fault < 9 ? "cancelled" : "no fault")
                + ", " + outcome + ", route " + planText(p), (a, b) -> b + "; " + a);
        (outcome == Outcome.COMMITTED ? committed : outcome == Outcome.ABORTED ? aborted : unknown).incrementAndGet();
        record(p, result, outcome);
    }

    void faults(Random rnd) {
        List<String> sites = List.of("c", "r", "s1", "s2", "s3");
        while (running) {
            try {
                Thread.sleep(200 + rnd.nextInt(500));
                int draw = rnd.nextInt(100);
                int kind = draw < 45 ? 0 : draw < 80 || !CLIENT_KILLS ? 1 : 2;
                if (kind == 0) {
                    String a = sites.get(rnd.nextInt(sites.size()));
                    String b = sites.get(rnd.nextInt(sites.size()));
                    if (a.equals(b)) {
                        continue;
                    }
                    lab.emulator().cutBoth(a, b);
                    Thread.sleep(20 + rnd.nextInt(200));
                    lab.emulator().healBoth(a, b);
                    faults.computeIfAbsent("cut " + a + "-" + b, k -> new AtomicInteger()).incrementAndGet();
                } else if (kind == 1) {
                    lab.kill("r");
                    Thread.sleep(20 + rnd.nextInt(200));
                    lab.restart("r");
                    faults.computeIfAbsent("relay restart", k -> new AtomicInteger()).incrementAndGet();
                } else {
                    int slot = rnd.nextInt(3);
                    RpccClient old = clients.getAndSet(slot, newClient());
                    old.close();
                    faults.computeIfAbsent("originator killed", k -> new AtomicInteger()).incrementAndGet();
                }
            } catch (InterruptedException e) {
                return;
            }
        }
    }

    static void eventually(BooleanSupplier condition, long seconds, java.util.function.Supplier<String> what) {
        long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(seconds);
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() > until) {
                throw new AssertionError("not within " + seconds + " s: " + what.get());
            }
            try {
                Thread.sleep(20);
            } catch (InterruptedException e) {
                throw new AssertionError(e);
            }
        }
    }

    @Test
    void conflictingAtomicChainsUnderFaultsAreSerializable() throws Exception {
        long seed = StressDepth.seed(AtomicHistoryStressTest.class);
        System.out.println(StressDepth.describe() + ": " + CHAINS + " chains, originator kills " + CLIENT_KILLS);
        List<RpccServer> data = new ArrayList<>();
        for (int i = 0; i < DATA.size(); i++) {
            String name = DATA.get(i);
            MAPS.put(name, TxMap.create(name + "-registers"));
            data.add(lab.server(name, "s" + (i + 1), b -> b.service("ops", AtomicHistoryStressTest::ops)));
        }
        lab.server("r", "r", b -> b.service("ops", AtomicHistoryStressTest::ops));
        for (int i = 0; i < 3; i++) {
            clients.set(i, newClient());
        }
        ExecutorService workers = Executors.newFixedThreadPool(WORKERS);
        ScheduledExecutorService timer = Executors.newSingleThreadScheduledExecutor();
        Thread faulter = new Thread(() -> faults(new Random(seed ^ 0x5EEDL)), "faults");
        AtomicInteger next = new AtomicInteger();
        long start = System.nanoTime();
        try {
            faulter.start();
            List<java.util.concurrent.Future<?>> done = new ArrayList<>();
            for (int w = 0; w < WORKERS; w++) {
                Random rnd = new Random(seed + w);
                done.add(workers.submit(() -> {
                    for (int i; (i = next.getAndIncrement()) < CHAINS; ) {
                        runOne(i, rnd, timer);
                    }
                }));
            }
            for (java.util.concurrent.Future<?> f : done) {
                f.get();
            }
        } finally {
            running = false;
            faulter.interrupt();
            faulter.join();
            lab.emulator().healAll();
            workers.shutdownNow();
            timer.shutdownNow();
        }
        long runMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
        System.out.printf("%d chains in %d ms: %d committed, %d aborted, %d unknown (%d hung), %d cancels, %d deadlines; faults %s%n",
                CHAINS, runMs, committed.get(), aborted.get(), unknown.get(), hung.get(), cancels.get(), deadlines.get(),
                faults);

        // every lock released and no participant left, at every data server and the relay
        List<RpccServer> all = new ArrayList<>(data);
        eventually(() -> all.stream().allMatch(s -> s.transactions().locksHeld() == 0
                        && s.transactions().activeParticipants() == 0), 60,
                () -> "locks released and participants gone: " + all.stream().map(s -> s.address() + " " + s.transactions())
                        .toList());

        // the final lists are the version order
        for (String server : DATA) {
            Map<String, String> committedState = MAPS.get(server).committed();
            for (int k = 0; k < KEYS; k++) {
                String key = server + "/k" + k;
                String list = committedState.get("k" + k);
                history.finalState(key, list == null ? null : lastOf(list));
                if (list != null) {
                    // a chain that wrote the key twice appended twice, one right after the other (it held the
                    // lock): only its last element is a version it installed
                    String[] elements = list.split(",");
                    for (int e = 0; e < elements.length; e++) {
                        if (e + 1 == elements.length || !txOf(elements[e]).equals(txOf(elements[e + 1]))) {
                            history.installed(key, elements[e]);
                        }
                    }
                }
                for (String seen : committedReads.getOrDefault(key, List.of())) {
                    assertTrue(seen.isEmpty() || list != null && (list.equals(seen) || list.startsWith(seen + ",")),
                            "a committed chain read " + key + " = [" + seen + "], not a prefix of its final list [" + list
                                    + "] (seed " + seed + ")");
                }
            }
        }
        history.installLogComplete();
        Verdict v = SerializabilityChecker.check(history);
        System.out.println(v);
        v.anomalies().stream().flatMap(a -> a.transactions().stream()).distinct().limit(20)
                .forEach(tx -> System.out.println("  " + tx + ": " + seen.get(tx)));
        v.assertOk();
        assertTrue(committed.get() > CHAINS / 4, "most chains commit: " + committed.get() + " of " + CHAINS);

        // the servers still serve a fresh chain
        RpccClient fresh = newClient();
        long t0 = System.nanoTime();
        Planned p = new Planned("fresh", List.of(new String[] {"d1", "w0"}, new String[] {"d2", "w0"},
                new String[] {"d3", "w0"}),
                StaticRoute.of(StaticRoute.hop("d1", "ops"), StaticRoute.hop("d2", "ops"), StaticRoute.hop("d3", "ops")));
        String r = (String) fresh.runChain(ChainCall.along(p.route(), planText(p)).atomic()
                .timeout(Duration.ofSeconds(10))).value();
        System.out.println("a fresh chain after the faults: " + TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - t0)
                + " ms, read lists of " + Arrays.stream(r.split(";", -1)[3].split("\\|")).map(l -> l.split(",").length)
                        .toList() + " versions");
        assertEquals("3", r.split(";", -1)[1]);
    }
}
