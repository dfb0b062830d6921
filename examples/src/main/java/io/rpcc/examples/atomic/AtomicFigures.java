package io.rpcc.examples.atomic;

import io.rpcc.client.AtomicCompletion;
import io.rpcc.client.ChainCall;
import io.rpcc.client.ReplySet;
import io.rpcc.client.RpccClient;
import io.rpcc.core.ServiceFunction;
import io.rpcc.core.StaticNameResolver;
import io.rpcc.core.StaticRoute;
import io.rpcc.examples.Options;
import io.rpcc.server.RpccServer;
import io.rpcc.server.atomic.Transaction;
import io.rpcc.testkit.WanCluster;
import io.rpcc.testkit.WanTopology;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.IntFunction;

/**
 * Waldo's microbenchmarks (section 6.1, tables 2 and 3) for atomic chains, beside the same chain not
 * atomic and beside plain two-phase commit, in one run: a two-hop chain whose service functions touch no
 * state, yet goes through the whole commit (a vote from each hop, the decision, a commit to each, its
 * acknowledgement).
 * <ul>
 *   <li>on loopback: the latency of one transaction at a time (Waldo: 0.174 ms, so 5,747/s) and the
 *       throughput with many in flight (Waldo: 13,105 transactions/s);</li>
 *   <li>on an emulated 74.7 ms round trip (Waldo's WAN: 150 ms, about two round trips): the client and
 *       the first hop on one side, the second hop on the other; the latency to the commit decision,
 *       to the commit applied at both servers and to the last acknowledgement home (what
 *       {@code runChain} waits for), against the plain chain (the plain and the atomic chain each after a
 *       pause of two round trips, in which the last run's commit rounds end; the commit applied read once
 *       every server acknowledged it; medians, and the fastest run);</li>
 *   <li>the atomic chain with {@link AtomicCompletion#DECIDED} (the caller's future completes at the
 *       decision, not once every server acknowledged it) beside the default, {@link AtomicCompletion#APPLIED}:
 *       one at a time and many in flight on loopback, and the caller's time over the emulated link;</li>
 *   <li>the bytes a transaction adds per hop (Waldo: about 500 B a transaction), counted on the
 *       emulated links.</li>
 * </ul>
 * The third column, {@link PlainTwoPhaseCommit}, runs the same two steps as a plain chain, then a
 * coordinator at the client: a PREPARE round to both servers at once, every vote awaited, then a COMMIT
 * round, every acknowledgement awaited; over the same transport (rpcc calls), against a participant that
 * keeps a shadow copy and holds a lock from the step to the commit. The atomic chain prepares each hop
 * before it forwards, so its votes come home with the chain and no vote round follows.
 *
 * <pre>
 * java -jar examples/target/rpcc-examples.jar atomic [--serial 3000] [--seconds 5] [--in-flight 64] [--wan-runs 20]
 * </pre>
 */
public final class AtomicFigures {
    private AtomicFigures() {
    }

    /** Sites of the emulated wide-area link: Waldo's desktop and its EC2 node, 74.7 ms apart. */
    static final String DESKTOP = "desktop";
    static final String EC2 = "ec2";

    /** Transactions of one kind that the byte count runs at once. */
    private static final int COUNTED_IN_FLIGHT = 16;

    /**
     * The figures of one run: per variant (the plain chain, the atomic chain, plain two-phase commit
     * ({@code twoPc})) the loopback latency and throughput, the latency over the emulated link to the
     * decision (the plain chain: its result; 2PC: every vote home), to the commit applied at both servers
     * and to the last acknowledgement home, and the bytes on the links per hop; for the atomic chain
     * completed at its decision ({@code decided}, {@link AtomicCompletion#DECIDED}) the loopback latency and
     * throughput and the caller's time over the emulated link ({@code wanDecidedCallerMs}; the default's
     * is {@code wanAckedMs}). The times over the emulated link are medians of {@code wanRuns}; the
     * {@code Fastest} ones the least of them, the chain undisturbed by the rest of the machine (a thread
     * that waited for a core, a compilation, a collection), which on a busy machine moves the medians
     * by more than the few milliseconds the commit protocol adds.
     */
    public record Figures(double plainMs, double atomicMs, double twoPcMs,
                          double plainPerSecond, double atomicPerSecond, double twoPcPerSecond,
                          double wanPlainMs, double wanAtomicMs, double wanTwoPcMs,
                          double wanAppliedMs, double wanTwoPcAppliedMs,
                          double wanAckedMs, double wanTwoPcAckedMs, double oneWayMs,
                          double plainBytesPerHop, double atomicBytesPerHop, double twoPcBytesPerHop,
                          double decidedMs, double decidedPerSecond, double wanDecidedCallerMs,
                          double wanPlainFastestMs, double wanAtomicFastestMs, double wanAppliedFastestMs, int wanRuns) {
        /** Transaction overhead of the atomic chain in bytes per hop. */
        public double overheadBytesPerHop() {
            return atomicBytesPerHop - plainBytesPerHop;
        }

        /** Transaction overhead of plain two-phase commit in bytes per hop. */
        public double twoPcOverheadBytesPerHop() {
            return twoPcBytesPerHop - plainBytesPerHop;
        }
    }

    public static void main(String[] args) throws Exception {
        Options o = Options.parse(args, "--serial", "--seconds", "--in-flight", "--wan-runs");
        Figures f = run(o.integer("--serial", 3000), o.integer("--seconds", 5), o.integer("--in-flight", 64),
                o.integer("--wan-runs", 20));
        System.out.printf(Locale.ROOT, "atomic chains beside Waldo (section 6.1) and plain two-phase commit;"
                + " a two-hop chain touching no state%n");
        System.out.printf(Locale.ROOT, "  %-44s %12s %12s %12s %12s %12s%n", "", "plain chain", "atomic", "atomic",
                "plain 2PC", "Waldo");
        System.out.printf(Locale.ROOT, "  %-44s %12s %12s %12s %12s %12s%n", "", "", "APPLIED", "DECIDED", "", "");
        System.out.printf(Locale.ROOT, "  %-44s %12.3f %12.3f %12.3f %12.3f %12s%n", "loopback latency, one at a time (ms)",
                f.plainMs(), f.atomicMs(), f.decidedMs(), f.twoPcMs(), "0.174");
        System.out.printf(Locale.ROOT, "  %-44s %12.0f %12.0f %12.0f %12.0f %12s%n", "loopback throughput (per second)",
                f.plainPerSecond(), f.atomicPerSecond(), f.decidedPerSecond(), f.twoPcPerSecond(), "13,105");
        System.out.printf(Locale.ROOT, "  %-44s %12.1f %12.1f %12s %12.1f %12s%n", "74.7 ms link: latency to the decision (ms)",
                f.wanPlainMs(), f.wanAtomicMs(), "", f.wanTwoPcMs(), "150.5");
        System.out.printf(Locale.ROOT, "  %-44s %12s %12.1f %12s %12.1f %12s%n", "74.7 ms link: applied at both servers (ms)",
                "", f.wanAppliedMs(), "", f.wanTwoPcAppliedMs(), "");
        System.out.printf(Locale.ROOT, "  %-44s %12.1f %12.1f %12.1f %12.1f %12s%n", "74.7 ms link: the caller's future (ms)",
                f.wanPlainMs(), f.wanAckedMs(), f.wanDecidedCallerMs(), f.wanTwoPcAckedMs(), "");
        System.out.printf(Locale.ROOT, "  %-44s %12.0f %12.0f %12s %12.0f %12s%n", "bytes on the links per hop",
                f.plainBytesPerHop(), f.atomicBytesPerHop(), "", f.twoPcBytesPerHop(), "~250");
        double rtt = 2 * f.oneWayMs();
        System.out.printf(Locale.ROOT, "  transaction overhead: %.0f B per hop; the decision %.1f ms and the commit applied"
                        + " everywhere %.1f ms after the plain chain (one one-way delay is %.1f ms); the caller learns"
                        + " it one more one-way later%n", f.overheadBytesPerHop(), f.wanAtomicMs() - f.wanPlainMs(),
                f.wanAppliedMs() - f.wanPlainMs(), f.oneWayMs());
        System.out.printf(Locale.ROOT, "  the fastest of %d runs: plain chain %.1f ms, the atomic chain's decision %.1f ms after it"
                        + " and its commit applied everywhere %.1f ms after it (the medians also carry the machine's"
                        + " stalls)%n", f.wanRuns(), f.wanPlainFastestMs(), f.wanAtomicFastestMs() - f.wanPlainFastestMs(),
                f.wanAppliedFastestMs() - f.wanPlainFastestMs());
        System.out.printf(Locale.ROOT, "  in round trips of %.1f ms: atomic chain decided %.2f, applied %.2f, caller %.2f;"
                        + " plain 2PC decided %.2f, applied %.2f, caller %.2f (%.0f B per hop over the plain chain)%n",
                rtt, f.wanAtomicMs() / rtt, f.wanAppliedMs() / rtt, f.wanAckedMs() / rtt, f.wanTwoPcMs() / rtt,
                f.wanTwoPcAppliedMs() / rtt, f.wanTwoPcAckedMs() / rtt, f.twoPcOverheadBytesPerHop());
    }

    /** The route of Waldo's two-step sequence: a step at each endpoint. */
    static ChainCall twoSteps(String first, String second, boolean atomic) {
        ChainCall call = ChainCall.along(StaticRoute.of(StaticRoute.hop(first, "step"), StaticRoute.hop(second, "step")), "t")
                .timeout(Duration.ofSeconds(30));
        return atomic ? call.atomic() : call;
    }

    /** The two-step sequence as an atomic chain whose caller returns at the decision ({@link AtomicCompletion#DECIDED}). */
    static ChainCall twoStepsDecided(String first, String second) {
        return twoSteps(first, second, false).atomic(AtomicCompletion.DECIDED);
    }

    /**
     * Runs every figure: {@code serial} transactions of each kind one at a time (after
     * {@code min(serial, max(500, serial / 3))} of each to warm up), {@code seconds} of throughput per kind with
     * {@code inFlight} at once (two rounds of half as long, in turn with the other kinds, the better kept), {@code wanRuns} of each kind over the emulated link (after up to 3 to warm up).
     */
    public static Figures run(int serial, double seconds, int inFlight, int wanRuns) throws Exception {
        StaticNameResolver names = new StaticNameResolver();
        List<AutoCloseable> nodes = new ArrayList<>();
        AtomicLong txIds = new AtomicLong();
        double plainMs;
        double atomicMs;
        double twoPcMs;
        double plainTps;
        double atomicTps;
        double twoPcTps;
        double decidedMs;
        double decidedTps;
        try {
            List<PlainTwoPhaseCommit.Participant> participants = new ArrayList<>();
            for (String name : List.of("e1", "e2")) {
                PlainTwoPhaseCommit.Participant participant = new PlainTwoPhaseCommit.Participant(name, new AtomicLong());
                participants.add(participant);
                RpccServer s = participant.serve(RpccServer.builder(name).resolver(names).service("step", p -> p)).build().start();
                names.register(name, s.address());
                nodes.add(s);
            }
            RpccClient client = RpccClient.builder().name("waldo-client").resolver(names).build().start();
            nodes.add(client);
            ChainCall plain = twoSteps("e1", "e2", false);
            ChainCall atomic = twoSteps("e1", "e2", true);
            ChainCall decided = twoStepsDecided("e1", "e2");
            PlainTwoPhaseCommit twoPc = new PlainTwoPhaseCommit(client, "e1", "e2");
            for (int i = 0; i < Math.min(serial, Math.max(500, serial / 3)); i++) { // warm-up
                client.runChain(plain);
                client.runChain(atomic);
                client.runChain(decided);
                commitOne(twoPc, txIds, "slot-0");
            }
            // side by side: blocks of 100 of each, in turn
            long plainNs = 0;
            long atomicNs = 0;
            long twoPcNs = 0;
            long decidedNs = 0;
            for (int done = 0; done < serial; done += 100) {
                int n = Math.min(100, serial - done);
                long t0 = System.nanoTime();
                for (int i = 0; i < n; i++) {
                    client.runChain(plain);
                }
                long t1 = System.nanoTime();
                for (int i = 0; i < n; i++) {
                    client.runChain(atomic);
                }
                long t2 = System.nanoTime();
                for (int i = 0; i < n; i++) {
                    client.runChain(decided);
                }
                long t3 = System.nanoTime();
                for (int i = 0; i < n; i++) {
                    commitOne(twoPc, txIds, "slot-0");
                }
                plainNs += t1 - t0;
                atomicNs += t2 - t1;
                decidedNs += t3 - t2;
                twoPcNs += System.nanoTime() - t3;
            }
            plainMs = plainNs / 1e6 / serial;
            atomicMs = atomicNs / 1e6 / serial;
            twoPcMs = twoPcNs / 1e6 / serial;
            decidedMs = decidedNs / 1e6 / serial;
            double[] plainRates = new double[2];
            double[] decidedRates = new double[2];
            double[] atomicRates = new double[2];
            double[] twoPcRates = new double[2];
            for (int round = 0; round < 2; round++) { // in turn, twice each, the better of two
                plainRates[round] = throughput(inFlight, seconds / 2.0, slot -> client.startChain(plain));
                atomicRates[round] = throughput(inFlight, seconds / 2.0, slot -> client.startChain(atomic));
                decidedRates[round] = throughput(inFlight, seconds / 2.0, slot -> client.startChain(decided));
                twoPcRates[round] = throughput(inFlight, seconds / 2.0,
                        slot -> twoPc.start("tx-" + txIds.incrementAndGet(), "slot-" + slot).done());
            }
            plainTps = Math.max(plainRates[0], plainRates[1]);
            atomicTps = Math.max(atomicRates[0], atomicRates[1]);
            twoPcTps = Math.max(twoPcRates[0], twoPcRates[1]);
            decidedTps = Math.max(decidedRates[0], decidedRates[1]);
            for (PlainTwoPhaseCommit.Participant p : participants) {
                if (p.locked() != 0 || p.committed("slot-0") == null) {
                    throw new IllegalStateException("the 2PC participant still holds " + p.locked()
                            + " locks after every transaction ended, or applied nothing: its commit is broken");
                }
            }
        } finally {
            for (AutoCloseable n : nodes.reversed()) {
                n.close();
            }
        }
        WanTopology wanTopology = WanTopology.builder().site(DESKTOP).site(EC2).rtt(DESKTOP, EC2, 74.7, 100).build();
        try (WanCluster wan = WanCluster.of(wanTopology)) {
            // each step notes when its server applies the commit (an onCommit hook), to time the commit itself
            AtomicLong appliedAt = new AtomicLong();
            AtomicLong twoPcAppliedAt = new AtomicLong();
            ServiceFunction step = p -> {
                Transaction tx = Transaction.current();
                if (tx != null) {
                    tx.onCommit(() -> appliedAt.accumulateAndGet(System.nanoTime(), Math::max));
                }
                return p;
            };
            PlainTwoPhaseCommit.Participant atE1 = new PlainTwoPhaseCommit.Participant("e1", twoPcAppliedAt);
            PlainTwoPhaseCommit.Participant atE2 = new PlainTwoPhaseCommit.Participant("e2", twoPcAppliedAt);
            wan.server("e1", DESKTOP, b -> atE1.serve(b.service("step", step)));
            wan.server("e2", EC2, b -> atE2.serve(b.service("step", step)));
            RpccClient client = wan.client("waldo-client", DESKTOP);
            ChainCall plain = twoSteps("e1", "e2", false);
            ChainCall atomic = twoSteps("e1", "e2", true);
            ChainCall decided = twoStepsDecided("e1", "e2");
            PlainTwoPhaseCommit twoPc = new PlainTwoPhaseCommit(client, "e1", "e2");
            for (int i = 0; i < Math.min(3, wanRuns); i++) {
                client.runChain(plain);
                client.runChain(atomic);
                client.runChain(decided);
                commitOne(twoPc, txIds, "slot-0");
            }
            List<Double> plainTimes = new ArrayList<>();
            List<Double> atomicTimes = new ArrayList<>();
            List<Double> ackedTimes = new ArrayList<>();
            List<Double> appliedTimes = new ArrayList<>();
            List<Double> twoPcTimes = new ArrayList<>();
            List<Double> twoPcAckedTimes = new ArrayList<>();
            List<Double> twoPcAppliedTimes = new ArrayList<>();
            List<Double> decidedCallerTimes = new ArrayList<>();
            // a DECIDED chain returns before its commit round (a DECIDE to each server, their acknowledgements) ends:
            // each run waits this long first, so that its chains do not share the nodes with that round, and as long
            // again before the atomic chain, so that both measured chains start after the same pause
            long settleMillis = (long) Math.ceil(4 * wanTopology.link(DESKTOP, EC2).latency().toNanos() / 1e6);
            for (int r = 0; r < wanRuns; r++) {
                Thread.sleep(settleMillis);
                long t0 = System.nanoTime();
                client.runChain(plain);
                plainTimes.add((System.nanoTime() - t0) / 1e6);
                Thread.sleep(settleMillis);
                long t1 = System.nanoTime();
                ReplySet<Object> replies = client.startChainWithReplies(atomic, Object.class);
                replies.result().join();
                long t2 = System.nanoTime();
                replies.whenDone().join();
                long t3 = System.nanoTime();
                // every server acknowledged: both commits, and their onCommit hooks, ran (read now, before the chains
                // below commit and move it)
                long applied = appliedAt.get();
                PlainTwoPhaseCommit.Run run = twoPc.start("tx-" + txIds.incrementAndGet(), "slot-0");
                boolean committed = run.decision().join();
                long t4 = System.nanoTime();
                run.done().join();
                long t5 = System.nanoTime();
                long twoPcApplied = twoPcAppliedAt.get();
                if (!committed) {
                    throw new IllegalStateException("a plain 2PC transaction over the emulated link aborted; see the servers' log");
                }
                client.runChain(decided);
                long t6 = System.nanoTime();
                decidedCallerTimes.add((t6 - t5) / 1e6);
                atomicTimes.add((t2 - t1) / 1e6);
                ackedTimes.add((t3 - t1) / 1e6);
                appliedTimes.add((applied - t1) / 1e6);
                twoPcTimes.add((t4 - t3) / 1e6);
                twoPcAckedTimes.add((t5 - t3) / 1e6);
                twoPcAppliedTimes.add((twoPcApplied - t3) / 1e6);
            }
            // bytes: the same number of each kind, COUNTED_IN_FLIGHT at once (the links carry the same frames)
            int counted = Math.max(10, 10 * wanRuns);
            long before = bytes(wan, wanTopology);
            runAll(counted, slot -> client.startChain(plain));
            long afterPlain = bytes(wan, wanTopology);
            runAll(counted, slot -> client.startChainWithReplies(atomic, Object.class).whenDone());
            long afterAtomic = bytes(wan, wanTopology);
            runAll(counted, slot -> twoPc.start("tx-" + txIds.incrementAndGet(), "slot-" + slot).done());
            long afterTwoPc = bytes(wan, wanTopology);
            double oneWay = wanTopology.link(DESKTOP, EC2).latency().toNanos() / 1e6;
            return new Figures(plainMs, atomicMs, twoPcMs, plainTps, atomicTps, twoPcTps,
                    median(plainTimes), median(atomicTimes), median(twoPcTimes),
                    median(appliedTimes), median(twoPcAppliedTimes), median(ackedTimes), median(twoPcAckedTimes), oneWay,
                    (afterPlain - before) / (2.0 * counted), (afterAtomic - afterPlain) / (2.0 * counted),
                    (afterTwoPc - afterAtomic) / (2.0 * counted), decidedMs, decidedTps, median(decidedCallerTimes),
                    Collections.min(plainTimes), Collections.min(atomicTimes), Collections.min(appliedTimes), wanRuns);
        }
    }

    /** One plain 2PC transaction, waited for to its last acknowledgement; an abort is an error here (nothing conflicts). */
    private static void commitOne(PlainTwoPhaseCommit twoPc, AtomicLong txIds, String key) {
        if (!twoPc.start("tx-" + txIds.incrementAndGet(), key).done().join()) {
            throw new IllegalStateException("a plain 2PC transaction on " + key + " aborted though nothing conflicts; see the servers' log");
        }
    }

    /**
     * Transactions completed per second with {@code inFlight} at once, for {@code seconds}. Each gets a
     * slot number that no other transaction in flight has ({@code 0 .. inFlight-1}); a future completing with
     * {@code false} (an aborted 2PC transaction) or failing does not count.
     */
    private static double throughput(int inFlight, double seconds, IntFunction<CompletableFuture<?>> start)
            throws InterruptedException {
        long begin = System.nanoTime();
        long done = drive(inFlight, begin + (long) (seconds * 1e9), Long.MAX_VALUE, start);
        return done / ((System.nanoTime() - begin) / 1e9);
    }

    /** Runs {@code count} transactions, {@link #COUNTED_IN_FLIGHT} at once; fails if one of them did not complete. */
    private static void runAll(int count, IntFunction<CompletableFuture<?>> start) throws InterruptedException {
        long done = drive(COUNTED_IN_FLIGHT, Long.MAX_VALUE, count, start);
        if (done != count) {
            throw new IllegalStateException((count - done) + " of " + count + " transactions failed while their bytes were"
                    + " counted; see the servers' log");
        }
    }

    /**
     * Starts transactions, {@code inFlight} at once, until {@code untilNanos} ({@link System#nanoTime()}) or
     * {@code max} started, waits for them all and returns how many succeeded.
     */
    private static long drive(int inFlight, long untilNanos, long max, IntFunction<CompletableFuture<?>> start)
            throws InterruptedException {
        BlockingQueue<Integer> free = new ArrayBlockingQueue<>(inFlight);
        for (int i = 0; i < inFlight; i++) {
            free.add(i);
        }
        AtomicLong done = new AtomicLong();
        for (long started = 0; started < max && System.nanoTime() < untilNanos; started++) {
            int slot = free.take();
            start.apply(slot).whenComplete((r, e) -> {
                if (e == null && !Boolean.FALSE.equals(r)) {
                    done.incrementAndGet();
                }
                free.add(slot);
            });
        }
        for (int i = 0; i < inFlight; i++) {
            free.take();
        }
        return done.get();
    }

    /** Bytes carried so far on every link of {@code t}, both ways, within sites too. */
    private static long bytes(WanCluster wan, WanTopology t) {
        long sum = 0;
        for (String from : t.sites()) {
            for (String to : t.sites()) {
                sum += wan.emulator().bytesCarried(from, to);
            }
        }
        return sum;
    }

    private static double median(List<Double> xs) {
        List<Double> sorted = new ArrayList<>(xs);
        sorted.sort(null);
        return sorted.get(sorted.size() / 2);
    }
}
