package io.rpcc.benchmarks;

import io.rpcc.client.RpccClient;
import io.rpcc.core.ChainResult;
import io.rpcc.core.ChainState;
import io.rpcc.core.ChainingFunctionSource;
import io.rpcc.core.FunctionIsolation;
import io.rpcc.core.Refusal;
import io.rpcc.core.SandboxLimits;
import io.rpcc.core.StaticNameResolver;
import io.rpcc.core.StaticRoute;
import io.rpcc.server.RpccServer;
import java.io.IOException;
import java.io.PrintStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import java.util.stream.Stream;

/**
 * What a hostile peer or a hostile chaining function costs everyone else: a bystander client's
 * latency at one node, with no attack and then under each attack in turn, side by side in one run. A
 * runner with a {@code main}, not a JMH benchmark. Every round measures the bystander without an
 * attack first and then under each attack, so the ratios compare figures taken minutes apart at most;
 * the report gives, per attack, the median over the rounds of the bystander's p50 and p99 and of their
 * ratios to the same round's unattacked figures.
 *
 * <p>The node under attack ({@code target}) has rpcc's default bounds, a second node ({@code next})
 * stands behind it, and Java functions of peers the node cannot verify run in function-runner
 * processes ({@link FunctionIsolation#BY_TRUST}, plaintext: every peer). The bystander runs one
 * operation at a time, in turn: a plain call to {@code target}, a two-hop chain
 * {@code target → next}, and a call to {@code target} with a small cached Java chaining function.
 * Each attack runs in a process of its own at the lowest CPU priority ({@link Attacker},
 * {@link AttackerProcess}), standing in for another machine: on the same cores at the same priority
 * it would measure its own CPU use rather than the node's defences. {@code docs/benchmarks.md} says
 * what each attack does.
 */
public final class UnderAttackBenchmark {
    static final String USAGE = """
            Usage: UnderAttackBenchmark [options]
              --attacks LIST       comma-separated, default all: %s
                                   (the bystander's unattacked baseline, "none", runs first in every round)
              --rounds N           rounds over all attacks, default 3 (the report: median of rounds)
              --seconds S          measured seconds per attack and round, default 3
              --warmup S           seconds an attack runs before the bystander is measured, default 1
              --initial-warmup S   seconds of the bystander's operations before the first round, default 10
              --csv FILE           also write one row per attack, operation and round
              --label TEXT         the build column of the CSV rows, default "run"
              --quiet              no progress lines on stderr
            """;

    /** Every attack, in the report's order; {@code none} is the baseline. */
    static final List<String> ATTACKS = Stream.concat(Stream.of("none"), Attacker.ATTACKS.stream()).toList();

    /** The bystander's operations, in the report's order. */
    static final List<String> OPERATIONS = List.of("call", "chain", "java");

    /** Latencies recorded per operation and window (more are counted, not recorded). */
    private static final int LATENCY_CAPACITY = 1 << 18;

    /** The node's wall-time limit for a chaining function: a hostile one holds a runner this long. */
    static final Duration WALL_TIME = Duration.ofSeconds(1);

    private UnderAttackBenchmark() {
    }

    public static void main(String[] args) throws Exception {
        Options options;
        try {
            options = Options.parse(args);
        } catch (IllegalArgumentException e) {
            System.err.println(e.getMessage());
            System.err.printf(USAGE, String.join(",", ATTACKS));
            System.exit(2);
            return;
        }
        if (options.help) {
            System.out.printf(USAGE, String.join(",", ATTACKS));
            return;
        }
        Report report = run(options, options.quiet ? null : System.err);
        System.out.print(report.markdown());
        System.out.flush();
        System.exit(report.errors().isEmpty() ? 0 : 1);
    }

    /** Runs every round of the attacks {@code options} select; progress on {@code progress} unless null. */
    static Report run(Options options, PrintStream progress) throws Exception {
        try (Setup setup = new Setup()) {
            Report report = new Report(options);
            // warm the bystander's paths (JIT, connections, the runner pool, the cached function)
            setup.bystander(options.initialWarmupSeconds);
            for (int round = 1; round <= options.rounds; round++) {
                for (String attack : options.attacks) {
                    Map<Refusal, Long> refusedBefore = setup.target.stats().refusals();
                    AttackerProcess attacker = attack.equals("none") ? null : setup.attacker(attack);
                    Window w;
                    AttackerProcess.Report did;
                    try {
                        sleep(options.warmupSeconds);
                        w = setup.bystander(options.seconds);
                    } finally {
                        did = attacker == null ? null : attacker.stop();
                    }
                    String what = did == null ? "" : did.text() + "; " + refusals(refusedBefore, setup.target.stats().refusals());
                    report.add(attack, round, w, did, what);
                    if (progress != null) {
                        progress.printf(Locale.ROOT, "round %d %-19s %s | %s%n", round, attack, w.summary(), what);
                    }
                    setup.settle();
                }
            }
            if (options.csv != null) {
                report.writeCsv(options.csv);
            }
            return report;
        }
    }

    /** The node's refusals between {@code before} and {@code after}, by kind, those that happened. */
    static String refusals(Map<Refusal, Long> before, Map<Refusal, Long> after) {
        StringBuilder s = new StringBuilder();
        for (Map.Entry<Refusal, Long> e : after.entrySet()) {
            long n = e.getValue() - before.getOrDefault(e.getKey(), 0L);
            if (n > 0) {
                s.append(s.isEmpty() ? "the node refused " : ", ").append(String.format(Locale.ROOT, "%,d %s", n, e.getKey()));
            }
        }
        return s.isEmpty() ? "the node refused nothing" : s.toString();
    }

    private static void sleep(double seconds) throws InterruptedException {
        Thread.sleep((long) (seconds * 1000));
    }

    /** A small chaining function, cached at the node after its first use. */
    static final ChainingFunctionSource BYSTANDER_FUNCTION = ChainingFunctionSource.java("""
            import io.rpcc.core.*;
            public class Bystander implements ChainingFunction {
                public NextHop apply(ChainState state, Object result) {
                    return NextHop.end(result + "!");
                }
            }
            """);

    /** The nodes, the bystander and the attackers' resources. */
    static final class Setup implements AutoCloseable {
        final StaticNameResolver names = new StaticNameResolver();
        final List<AutoCloseable> closeables = new ArrayList<>();
        final RpccServer target;
        final RpccServer next;
        final RpccClient bystander;
        /** Accepts connections (into its backlog) and never answers: a next hop that is dead but reachable. */
        final ServerSocket blackHole;
        final StaticRoute twoHops = StaticRoute.of(StaticRoute.hop("target", "echo"), StaticRoute.hop("next", "echo"));

        Setup() throws IOException {
            SandboxLimits limits = new SandboxLimits(SandboxLimits.DEFAULT.cpuTime(), SandboxLimits.DEFAULT.allocatedBytes(), WALL_TIME);
            target = closing(RpccServer.builder("target").resolver(names).service("echo", p -> p).sandbox(limits)
                    .functionIsolation(FunctionIsolation.BY_TRUST).build().start());
            names.register("target", target.address());
            next = closing(RpccServer.builder("next").resolver(names).service("echo", p -> p).build().start());
            names.register("next", next.address());
            blackHole = closing(new ServerSocket(0, 4096, InetAddress.getLoopbackAddress()));
            names.register("dead", new InetSocketAddress(InetAddress.getLoopbackAddress(), blackHole.getLocalPort()));
            bystander = closing(RpccClient.builder().name("bystander").resolver(names).timeout(Duration.ofSeconds(30))
                    .build().start());
        }

        private <T extends AutoCloseable> T closing(T c) {
            closeables.add(c);
            return c;
        }

        /** The bystander's operations, one at a time in turn, for {@code seconds}; checks each result. */
        Window bystander(double seconds) {
            Window w = new Window();
            long end = System.nanoTime() + (long) (seconds * 1e9);
            long n = 0;
            while (System.nanoTime() < end) {
                String payload = "p" + n++;
                w.time("call", () -> bystander.call("target", "echo", payload), payload);
                w.time("chain", () -> bystander.startChain(twoHops, payload), payload);
                w.time("java", () -> bystander.startChain("target", "echo", payload, BYSTANDER_FUNCTION, ChainState.empty()),
                        payload + "!");
            }
            return w;
        }

        /** Waits for what an attack left behind to go: its connections closed, killed runners replaced. */
        void settle() throws InterruptedException {
            Thread.sleep(500);
            for (int i = 0; i < 100 && target.stats().connectionsOpen() > 4; i++) {
                Thread.sleep(50);
            }
        }

        /** Starts an attacker process running attack {@code name} on {@code target}. */
        AttackerProcess attacker(String name) throws IOException {
            return AttackerProcess.start(name, target.address(),
                    new InetSocketAddress(InetAddress.getLoopbackAddress(), blackHole.getLocalPort()));
        }

        @Override
        public void close() throws Exception {
            for (AutoCloseable c : closeables.reversed()) {
                c.close();
            }
        }
    }

    /** The bystander's latencies in one window, per operation, and the operations that failed. */
    static final class Window {
        final Map<String, long[]> latencies = new LinkedHashMap<>();
        final Map<String, Integer> counts = new LinkedHashMap<>();
        final List<String> errors = new ArrayList<>();

        Window() {
            for (String op : OPERATIONS) {
                latencies.put(op, new long[LATENCY_CAPACITY]);
                counts.put(op, 0);
            }
        }

        void time(String op, Supplier<CompletableFuture<ChainResult>> call, Object expected) {
            long t = System.nanoTime();
            try {
                Object value = call.get().get(60, TimeUnit.SECONDS).value();
                long took = System.nanoTime() - t;
                if (!expected.equals(value)) {
                    errors.add(op + ": expected " + expected + ", got " + value);
                    return;
                }
                int n = counts.get(op);
                if (n < LATENCY_CAPACITY) {
                    latencies.get(op)[n] = took;
                    counts.put(op, n + 1);
                }
            } catch (Exception e) {
                if (errors.size() < 20) {
                    errors.add(op + ": " + e);
                }
            }
        }

        /** The {@code q}-quantile of {@code op}'s latencies, in microseconds; NaN if none. */
        double quantileMicros(String op, double q) {
            int n = counts.get(op);
            if (n == 0) {
                return Double.NaN;
            }
            long[] sorted = Arrays.copyOf(latencies.get(op), n);
            Arrays.sort(sorted);
            return sorted[Math.clamp((long) Math.ceil(q * n) - 1, 0, n - 1)] / 1e3;
        }

        String summary() {
            StringBuilder s = new StringBuilder();
            for (String op : OPERATIONS) {
                s.append(String.format(Locale.ROOT, "%s p50 %.0f p99 %.0f µs (%d)  ", op, quantileMicros(op, 0.5),
                        quantileMicros(op, 0.99), counts.get(op)));
            }
            return s + (errors.isEmpty() ? "" : errors.size() + " errors");
        }
    }

    /** Every window of a run, and the table. */
    static final class Report {
        final Options options;
        /** attack → round → window. */
        final Map<String, Map<Integer, Window>> windows = new LinkedHashMap<>();
        final Map<String, String> attackers = new LinkedHashMap<>();
        /** attack → what its attacker did, per round. */
        final Map<String, List<AttackerProcess.Report>> did = new LinkedHashMap<>();

        Report(Options options) {
            this.options = options;
        }

        void add(String attack, int round, Window w, AttackerProcess.Report attacker, String what) {
            windows.computeIfAbsent(attack, a -> new LinkedHashMap<>()).put(round, w);
            attackers.put(attack, what);
            if (attacker != null) {
                did.computeIfAbsent(attack, a -> new ArrayList<>()).add(attacker);
            }
        }

        List<String> errors() {
            List<String> all = new ArrayList<>();
            windows.forEach((attack, rounds) -> rounds.forEach((round, w) -> w.errors.forEach(e -> all.add(attack + " round " + round + ": " + e))));
            return all;
        }

        /** The median over the rounds of {@code f(window of attack, window of none)}. */
        double median(String attack, String op, boolean ratio, double q) {
            List<Double> values = new ArrayList<>();
            windows.getOrDefault(attack, Map.of()).forEach((round, w) -> {
                double v = w.quantileMicros(op, q);
                if (ratio) {
                    Window base = windows.getOrDefault("none", Map.of()).get(round);
                    v = base == null ? Double.NaN : v / base.quantileMicros(op, q);
                }
                values.add(v);
            });
            if (values.isEmpty()) {
                return Double.NaN;
            }
            values.sort(null);
            return values.get(values.size() / 2);
        }

        String markdown() {
            StringBuilder s = new StringBuilder();
            s.append(String.format(Locale.ROOT, "Bystander latency, µs (median of %d rounds of %.1f s; × the same round's unattacked figure)%n%n",
                    options.rounds, options.seconds));
            s.append("| attack |");
            for (String op : OPERATIONS) {
                s.append(" ").append(op).append(" p50 | ").append(op).append(" p99 |");
            }
            s.append("\n| --- |").append(" ---: | ---: |".repeat(OPERATIONS.size())).append("\n");
            for (String attack : windows.keySet()) {
                s.append("| ").append(attack).append(" |");
                for (String op : OPERATIONS) {
                    for (double q : new double[] {0.5, 0.99}) {
                        double v = median(attack, op, false, q);
                        s.append(attack.equals("none") ? String.format(Locale.ROOT, " %.0f |", v)
                                : String.format(Locale.ROOT, " %.0f (%.2f×) |", v, median(attack, op, true, q)));
                    }
                }
                s.append("\n");
            }
            s.append("\nWhat each attacker did in its last round, and what the node refused meanwhile:\n\n");
            attackers.forEach((attack, what) -> {
                if (!what.isEmpty()) {
                    s.append("- ").append(attack).append(": ").append(what).append("\n");
                }
            });
            List<String> errors = errors();
            if (!errors.isEmpty()) {
                s.append("\nBystander operations that failed (").append(errors.size()).append("):\n");
                errors.forEach(e -> s.append("- ").append(e).append("\n"));
            }
            return s.toString();
        }

        void writeCsv(Path file) throws IOException {
            List<String> rows = new ArrayList<>();
            rows.add("build,round,attack,operation,ops,p50_us,p99_us");
            windows.forEach((attack, rounds) -> rounds.forEach((round, w) -> {
                for (String op : OPERATIONS) {
                    rows.add(String.format(Locale.ROOT, "%s,%d,%s,%s,%d,%.1f,%.1f", options.label, round, attack, op,
                            w.counts.get(op), w.quantileMicros(op, 0.5), w.quantileMicros(op, 0.99)));
                }
            }));
            Files.write(file, rows);
        }
    }

    /** The command line. */
    static final class Options {
        List<String> attacks = ATTACKS;
        int rounds = 3;
        double seconds = 3;
        double warmupSeconds = 1;
        double initialWarmupSeconds = 10;
        Path csv;
        String label = "run";
        boolean quiet;
        boolean help;

        static Options parse(String... args) {
            Options o = new Options();
            for (int i = 0; i < args.length; i++) {
                String a = args[i];
                switch (a) {
                    case "--help", "-h" -> o.help = true;
                    case "--quiet" -> o.quiet = true;
                    case "--attacks" -> {
                        List<String> chosen = new ArrayList<>(List.of("none"));
                        for (String name : value(args, ++i, a).split(",")) {
                            if (!ATTACKS.contains(name)) {
                                throw new IllegalArgumentException("unknown attack '" + name + "'");
                            }
                            if (!chosen.contains(name)) {
                                chosen.add(name);
                            }
                        }
                        o.attacks = chosen;
                    }
                    case "--rounds" -> o.rounds = Integer.parseInt(value(args, ++i, a));
                    case "--seconds" -> o.seconds = Double.parseDouble(value(args, ++i, a));
                    case "--warmup" -> o.warmupSeconds = Double.parseDouble(value(args, ++i, a));
                    case "--initial-warmup" -> o.initialWarmupSeconds = Double.parseDouble(value(args, ++i, a));
                    case "--csv" -> o.csv = Path.of(value(args, ++i, a));
                    case "--label" -> o.label = value(args, ++i, a);
                    default -> throw new IllegalArgumentException("unknown option '" + a + "'");
                }
            }
            if (o.rounds < 1 || o.seconds <= 0 || o.warmupSeconds < 0) {
                throw new IllegalArgumentException("--rounds must be at least 1, --seconds above 0, --warmup at least 0");
            }
            return o;
        }

        private static String value(String[] args, int i, String option) {
            if (i >= args.length) {
                throw new IllegalArgumentException(option + " needs a value");
            }
            return args[i];
        }
    }
}
