package io.rpcc.examples.atomic;

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
import java.util.List;
import java.util.Locale;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Semaphore;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Waldo's microbenchmarks (section 6.1, tables 2 and 3) for atomic chains, beside the same chain not
 * atomic, in one run: a two-hop chain whose service functions touch no state, yet goes through the
 * whole commit (a vote from each hop, the decision, a commit to each, its acknowledgement).
 * <ul>
 *   <li>on loopback: the latency of one transaction at a time (Waldo: 0.174 ms, so 5,747/s) and the
 *       throughput with many in flight (Waldo: 13,105 transactions/s);</li>
 *   <li>on an emulated 74.7 ms round trip (Waldo's WAN: 150 ms, about two round trips): the client and
 *       the first hop on one side, the second hop on the other; the latency to the commit decision
 *       (what the caller waits for) and to the last acknowledgement home, against the plain chain;</li>
 *   <li>the bytes a transaction adds per hop (Waldo: about 500 B a transaction), counted on the
 *       emulated links.</li>
 * </ul>
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

    /** The figures of one run. */
    public record Figures(double plainMs, double atomicMs, double plainPerSecond, double atomicPerSecond,
                          double wanPlainMs, double wanAtomicMs, double wanAppliedMs, double wanAckedMs, double oneWayMs,
                          double plainBytesPerHop, double atomicBytesPerHop) {
        /** Transaction overhead in bytes per hop. */
        public double overheadBytesPerHop() {
            return atomicBytesPerHop - plainBytesPerHop;
        }
    }

    public static void main(String[] args) throws Exception {
        Options o = Options.parse(args, "--serial", "--seconds", "--in-flight", "--wan-runs");
        Figures f = run(o.integer("--serial", 3000), o.integer("--seconds", 5), o.integer("--in-flight", 64),
                o.integer("--wan-runs", 20));
        System.out.printf(Locale.ROOT, "atomic chains beside Waldo (section 6.1); a two-hop chain touching no state%n");
        System.out.printf(Locale.ROOT, "  %-44s %12s %12s %12s%n", "", "plain chain", "atomic", "Waldo");
        System.out.printf(Locale.ROOT, "  %-44s %12.3f %12.3f %12s%n", "loopback latency, one at a time (ms)",
                f.plainMs(), f.atomicMs(), "0.174");
        System.out.printf(Locale.ROOT, "  %-44s %12.0f %12.0f %12s%n", "loopback throughput (per second)",
                f.plainPerSecond(), f.atomicPerSecond(), "13,105");
        System.out.printf(Locale.ROOT, "  %-44s %12.1f %12.1f %12s%n", "74.7 ms link: latency to the decision (ms)",
                f.wanPlainMs(), f.wanAtomicMs(), "150.5");
        System.out.printf(Locale.ROOT, "  %-44s %12s %12.1f %12s%n", "74.7 ms link: applied at both servers (ms)",
                "", f.wanAppliedMs(), "");
        System.out.printf(Locale.ROOT, "  %-44s %12s %12.1f %12s%n", "74.7 ms link: the caller's future (ms)",
                "", f.wanAckedMs(), "");
        System.out.printf(Locale.ROOT, "  %-44s %12.0f %12.0f %12s%n", "bytes on the links per hop",
                f.plainBytesPerHop(), f.atomicBytesPerHop(), "~250");
        System.out.printf(Locale.ROOT, "  transaction overhead: %.0f B per hop; the decision %.1f ms and the commit applied"
                        + " everywhere %.1f ms after the plain chain (one one-way delay is %.1f ms); the caller learns"
                        + " it one more one-way later%n", f.overheadBytesPerHop(), f.wanAtomicMs() - f.wanPlainMs(),
                f.wanAppliedMs() - f.wanPlainMs(), f.oneWayMs());
    }

    /** The route of Waldo's two-step sequence: a step at each endpoint. */
    static ChainCall twoSteps(String first, String second, boolean atomic) {
        ChainCall call = ChainCall.along(StaticRoute.of(StaticRoute.hop(first, "step"), StaticRoute.hop(second, "step")), "t")
                .timeout(Duration.ofSeconds(30));
        return atomic ? call.atomic() : call;
    }

    /** Runs every figure: {@code serial} transactions one at a time, {@code seconds} of throughput, {@code wanRuns} over the WAN. */
    public static Figures run(int serial, int seconds, int inFlight, int wanRuns) throws Exception {
        StaticNameResolver names = new StaticNameResolver();
        List<AutoCloseable> nodes = new ArrayList<>();
        double plainMs;
        double atomicMs;
        double plainTps;
        double atomicTps;
        try {
            for (String name : List.of("e1", "e2")) {
                RpccServer s = RpccServer.builder(name).resolver(names).service("step", p -> p).build().start();
                names.register(name, s.address());
                nodes.add(s);
            }
            RpccClient client = RpccClient.builder().name("waldo-client").resolver(names).build().start();
            nodes.add(client);
            ChainCall plain = twoSteps("e1", "e2", false);
            ChainCall atomic = twoSteps("e1", "e2", true);
            for (int i = 0; i < Math.max(500, serial / 3); i++) { // warm-up
                client.runChain(plain);
                client.runChain(atomic);
            }
            // side by side: blocks of 100 of each, alternately
            long plainNs = 0;
            long atomicNs = 0;
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
                plainNs += t1 - t0;
                atomicNs += System.nanoTime() - t1;
            }
            plainMs = plainNs / 1e6 / serial;
            atomicMs = atomicNs / 1e6 / serial;
            double[] plainRates = new double[2];
            double[] atomicRates = new double[2];
            for (int round = 0; round < 2; round++) { // alternately, twice each, the better of two
                plainRates[round] = throughput(client, plain, inFlight, seconds / 2.0);
                atomicRates[round] = throughput(client, atomic, inFlight, seconds / 2.0);
            }
            plainTps = Math.max(plainRates[0], plainRates[1]);
            atomicTps = Math.max(atomicRates[0], atomicRates[1]);
        } finally {
            for (AutoCloseable n : nodes.reversed()) {
                n.close();
            }
        }
        WanTopology wanTopology = WanTopology.builder().site(DESKTOP).site(EC2).rtt(DESKTOP, EC2, 74.7, 100).build();
        try (WanCluster wan = WanCluster.of(wanTopology)) {
            // each step notes when its server applies the commit (an onCommit hook), to time the commit itself
            AtomicLong appliedAt = new AtomicLong();
            ServiceFunction step = p -> {
                Transaction tx = Transaction.current();
                if (tx != null) {
                    tx.onCommit(() -> appliedAt.accumulateAndGet(System.nanoTime(), Math::max));
                }
                return p;
            };
            wan.server("e1", DESKTOP, b -> b.service("step", step));
            wan.server("e2", EC2, b -> b.service("step", step));
            RpccClient client = wan.client("waldo-client", DESKTOP);
            ChainCall plain = twoSteps("e1", "e2", false);
            ChainCall atomic = twoSteps("e1", "e2", true);
            for (int i = 0; i < 3; i++) {
                client.runChain(plain);
                client.runChain(atomic);
            }
            List<Double> plainTimes = new ArrayList<>();
            List<Double> atomicTimes = new ArrayList<>();
            List<Double> ackedTimes = new ArrayList<>();
            List<Double> appliedTimes = new ArrayList<>();
            for (int r = 0; r < wanRuns; r++) {
                long t0 = System.nanoTime();
                client.runChain(plain);
                long t1 = System.nanoTime();
                ReplySet<Object> replies = client.startChainWithReplies(atomic, Object.class);
                replies.result().join();
                long t2 = System.nanoTime();
                replies.whenDone().join();
                long t3 = System.nanoTime();
                plainTimes.add((t1 - t0) / 1e6);
                atomicTimes.add((t2 - t1) / 1e6);
                ackedTimes.add((t3 - t1) / 1e6);
                appliedTimes.add((appliedAt.get() - t1) / 1e6);
            }
            long plainBytes = bytes(wan, wanTopology);
            int counted = Math.max(10, 10 * wanRuns);
            for (int i = 0; i < counted; i++) {
                client.runChain(plain);
            }
            long afterPlain = bytes(wan, wanTopology);
            for (int i = 0; i < counted; i++) {
                client.startChainWithReplies(atomic, Object.class).awaitDone();
            }
            long afterAtomic = bytes(wan, wanTopology);
            double oneWay = wanTopology.link(DESKTOP, EC2).latency().toNanos() / 1e6;
            return new Figures(plainMs, atomicMs, plainTps, atomicTps, median(plainTimes), median(atomicTimes),
                    median(appliedTimes), median(ackedTimes), oneWay, (afterPlain - plainBytes) / (2.0 * counted),
                    (afterAtomic - afterPlain) / (2.0 * counted));
        }
    }

    /** Chains completed per second with {@code inFlight} at once, for {@code seconds}. */
    private static double throughput(RpccClient client, ChainCall call, int inFlight, double seconds) throws InterruptedException {
        Semaphore slots = new Semaphore(inFlight);
        AtomicLong done = new AtomicLong();
        long end = System.nanoTime() + (long) (seconds * 1e9);
        long start = System.nanoTime();
        while (System.nanoTime() < end) {
            slots.acquire();
            CompletableFuture<?> f = client.startChain(call);
            f.whenComplete((r, e) -> {
                if (e == null) {
                    done.incrementAndGet();
                }
                slots.release();
            });
        }
        slots.acquire(inFlight);
        double elapsed = (System.nanoTime() - start) / 1e9;
        return done.get() / elapsed;
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
