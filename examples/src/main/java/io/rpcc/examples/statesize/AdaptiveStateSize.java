package io.rpcc.examples.statesize;

import io.rpcc.client.ChainCall;
import io.rpcc.client.RpccClient;
import io.rpcc.client.StateFallback;
import io.rpcc.core.ChainResult;
import io.rpcc.core.ChainState;
import io.rpcc.core.StateChoice;
import io.rpcc.examples.Charts;
import io.rpcc.examples.Measurement;
import io.rpcc.examples.Options;
import io.rpcc.examples.Results;
import io.rpcc.examples.Timing;
import io.rpcc.testkit.WanCluster;
import io.rpcc.testkit.WanTopology;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;

/**
 * Figure 10 with the adaptive state fall-back ({@code StateFallback.ADAPTIVE}, paper sections 5.2.2
 * and 6): the chain of {@link StateSize} (client in Redmond, two no-op servers in Mountain View) in
 * chain mode, as two plain RPCs, and adaptive, which keeps the state at the client and runs the
 * chaining function there when carrying it would cost more than the round trip it saves. From 1 KB
 * to 10 MB of state; the adaptive line should follow the lower of the other two. Also with the
 * second server 15 ms from the first (and as far from the client as the first), where the paper puts
 * the crossover at about 100 KB. Prints a table per setting, or with {@code --json} one
 * {@link Measurement} per line ({@code param}: the state size in KB; {@code site}: {@code "same site"}
 * or {@code "15 ms apart"}); writes the charts {@code figure-10-adaptive.png} and
 * {@code figure-10-adaptive-apart.png}.
 *
 * <pre>
 * java -jar examples/target/rpcc-examples.jar state-size --adaptive [--json] [--sizes 1,100,1000] [--runs 5]
 *     [--apart-ms 0|15|-1] [--charts DIR]
 * </pre>
 *
 * ({@code --apart-ms}: only the setting with the servers that far apart; -1, the default, both.)
 */
public final class AdaptiveStateSize {
    static final String SCENARIO = "state-size-adaptive";
    /** Where the second server is in the variant with the servers apart. */
    static final String FAR_SITE = "Mountain View + 15 ms";
    static final List<Integer> DEFAULT_SIZES = List.of(1, 10, 50, 100, 125, 150, 175, 200, 250, 300, 500, 1000, 3000, 10000);
    /** Runs per variant and size (medians of these). */
    static final int DEFAULT_RUNS = 11;
    /** The warm-up with the links' delays off, unless {@code --warmup-ms} says otherwise. */
    static final int DEFAULT_WARM_UP_MS = 15_000;
    /** A cell whose adaptive line is further than this over the lower of the other two is measured again. */
    static final double GOAL_PERCENT = 5;
    /** The three variants, in the order of a run; each run starts one further along. */
    static final List<String> VARIANTS = List.of("chain", "rpc", "adaptive");

    /**
     * How long the client runs with the links' delays on after the warm-up, before measuring: longer
     * than a round-trip estimate keeps a sample (10 s).
     */
    static final Duration SETTLE = Duration.ofSeconds(11);

    private AdaptiveStateSize() {
    }

    public static void main(String[] args) throws Exception {
        Options o = Options.parse(args, "--sizes", "--runs", "--apart-ms");
        List<Integer> sizes = o.integers("--sizes", DEFAULT_SIZES);
        int runs = o.integer("--runs", DEFAULT_RUNS);
        int apart = o.integer("--apart-ms", -1);
        List<Integer> settings = apart < 0 ? List.of(0, 15) : List.of(apart);
        Results all = new Results();
        List<Runnable> tables = new ArrayList<>();
        List<Path> charts = new ArrayList<>();
        for (int ms : settings) {
            WanTopology t = topology(ms);
            String label = label(ms);
            Sweep sweep = run(t, sizes, runs, Duration.ofMillis(o.integer("--warmup-ms", DEFAULT_WARM_UP_MS)), label);
            Results results = sweep.results();
            results.lines().forEach(all::add);
            charts.add(Charts.line(o.charts(), ms == 0 ? "figure-10-adaptive" : "figure-10-adaptive-apart",
                    "Chain, two RPCs and adaptive against state size (figure 10, servers " + label + ")",
                    "chain state (KB, log scale)", "latency (ms, log scale)", results.lines(), Measurement::label,
                    Measurement::param, Measurement::medianMs, true));
            tables.add(() -> printTable(sweep, t, label, runs));
        }
        all.print(o, charts.isEmpty() ? null : charts.getLast(), () -> {
            tables.forEach(Runnable::run);
            for (int i = 0; i < charts.size() - 1; i++) {
                if (charts.get(i) != null) {
                    System.out.println("chart: " + charts.get(i));
                }
            }
        });
    }

    private static String label(int apartMs) {
        return apartMs == 0 ? "same site" : apartMs + " ms apart";
    }

    /** Figure 7's topology; with {@code apartMs > 0}, a site that far from Mountain View and as far from Redmond. */
    public static WanTopology topology(int apartMs) {
        if (apartMs == 0) {
            return WanTopology.paperFigure7();
        }
        WanTopology.Link redmond = WanTopology.paperFigure7().link(WanTopology.REDMOND, WanTopology.MOUNTAIN_VIEW);
        return WanTopology.builder()
                .site(WanTopology.MOUNTAIN_VIEW).site(WanTopology.REDMOND).site(FAR_SITE)
                .link(WanTopology.MOUNTAIN_VIEW, WanTopology.REDMOND, redmond.latency(), redmond.bytesPerSecond())
                .link(FAR_SITE, WanTopology.REDMOND, redmond.latency(), redmond.bytesPerSecond())
                .link(WanTopology.MOUNTAIN_VIEW, FAR_SITE, Duration.ofMillis(apartMs), redmond.bytesPerSecond())
                .build();
    }

    private static String siteOfB(WanTopology t) {
        return t.sites().contains(FAR_SITE) ? FAR_SITE : WanTopology.MOUNTAIN_VIEW;
    }

    /**
     * The runs of one state size: each variant's times (ms, in run order), how many of the adaptive
     * chain's runs carried the state, and its last choice.
     */
    public record Cell(List<Double> chain, List<Double> rpc, List<Double> adaptive, int carried, StateChoice lastChoice) {
        /** The times of {@code variant}. */
        public List<Double> of(String variant) {
            return switch (variant) {
                case "chain" -> chain;
                case "rpc" -> rpc;
                default -> adaptive;
            };
        }

        /** The median of {@code variant}. */
        public double median(String variant) {
            return Timing.median(of(variant));
        }

        /** Half the interquartile range of {@code variant} (ms): how far its middle half strays from its median. */
        public double halfSpread(String variant) {
            List<Double> sorted = new ArrayList<>(of(variant));
            Collections.sort(sorted);
            int n = sorted.size();
            return (sorted.get(n - 1 - n / 4) - sorted.get(n / 4)) / 2;
        }

        /** How far the adaptive median is above the lower of the other two, in percent. */
        public double overMinPercent() {
            return 100 * (median("adaptive") / Math.min(median("chain"), median("rpc")) - 1);
        }

        /** The share of the adaptive runs that carried the state. */
        public double carriedShare() {
            return adaptive.isEmpty() ? 0 : (double) carried / adaptive.size();
        }
    }

    /**
     * What {@link #run} measured: the lines (each {@code at} the setting's label), the runs of each
     * state size, and, for the sizes whose adaptive line missed the goal ({@link #GOAL_PERCENT}), the
     * runs of that size measured again right after the sweep.
     */
    public record Sweep(Results results, Map<Integer, Cell> cells, Map<Integer, Cell> reruns) {
    }

    /**
     * Measures the three variants, interleaved (each run in the order of {@link #VARIANTS}, starting
     * one further along than the run before, so that none always follows the chain that sent the
     * largest state), at each state size, after warming them up; then measures again each size whose
     * adaptive median is more than {@link #GOAL_PERCENT} over the lower of the other two.
     */
    public static Sweep run(WanTopology t, List<Integer> sizesKb, int runs, Duration warmUp, String label)
            throws Exception {
        Results results = new Results();
        Map<Integer, Cell> cells = new LinkedHashMap<>();
        Map<Integer, Cell> reruns = new LinkedHashMap<>();
        try (WanCluster wan = WanCluster.of(t)) {
            wan.server("a", WanTopology.MOUNTAIN_VIEW, b -> b.service("noop", p -> p));
            wan.server("b", siteOfB(t), b -> b.service("noop", p -> p));
            RpccClient client = wan.client("client", WanTopology.REDMOND);
            ChainState empty = ChainState.of("blob", new byte[0]);
            Timing.warmUp(warmUp, wan.emulator(), () -> {
                chain(client, empty, StateFallback.NEVER);
                chain(client, empty, StateFallback.ADAPTIVE);
                twoRpcs(client);
            });
            // the warm-up ran with the links' delays off: what the client measured then (round trips
            // of a fraction of a millisecond) ages out of its estimates while it runs with them on
            long settle = System.nanoTime() + (warmUp.isZero() ? 0 : SETTLE.toNanos());
            while (System.nanoTime() < settle) {
                chain(client, empty, StateFallback.ADAPTIVE);
                twoRpcs(client);
            }
            for (int kb : sizesKb) {
                Cell cell = measure(client, kb, runs);
                cells.put(kb, cell);
                results.add(Measurement.measured(SCENARIO, "chain", kb, cell.median("chain"), 2).at(label));
                results.add(Measurement.measured(SCENARIO, "rpc", kb, cell.median("rpc"), 2).at(label));
                results.add(Measurement.measured(SCENARIO, "adaptive", kb, cell.median("adaptive"), 2).at(label));
                results.add(Measurement.ideal(SCENARIO, "chain", kb, idealChainMs(t, kb * 1024L), 2).at(label));
                results.add(Measurement.ideal(SCENARIO, "rpc", kb, idealRpcMs(t), 2).at(label));
            }
            for (int kb : sizesKb) {
                if (runs > 0 && cells.get(kb).overMinPercent() > GOAL_PERCENT) { // noise, or a wrong choice?
                    reruns.put(kb, measure(client, kb, runs));
                }
            }
        }
        return new Sweep(results, cells, reruns);
    }

    /** {@code runs} runs of the three variants with {@code kb} KB of state, after two not counted. */
    private static Cell measure(RpccClient client, int kb, int runs) throws Exception {
        ChainState state = ChainState.of("blob", new byte[kb * 1024]);
        Map<String, List<Double>> times = new LinkedHashMap<>();
        VARIANTS.forEach(v -> times.put(v, new ArrayList<>()));
        int carried = 0;
        ChainResult[] last = new ChainResult[1];
        for (int r = -2; r < runs; r++) { // r < 0: the first two of this size are not counted
            for (int i = 0; i < VARIANTS.size(); i++) {
                String v = VARIANTS.get((i + r + 2) % VARIANTS.size());
                double ms = Timing.millis(() -> {
                    switch (v) {
                        case "chain" -> chain(client, state, StateFallback.NEVER);
                        case "rpc" -> twoRpcs(client);
                        default -> last[0] = chain(client, state, StateFallback.ADAPTIVE);
                    }
                });
                if (r >= 0) {
                    times.get(v).add(ms);
                    if (v.equals("adaptive")) {
                        carried += last[0].stateChoices().getFirst().carried() ? 1 : 0;
                    }
                }
            }
        }
        return new Cell(times.get("chain"), times.get("rpc"), times.get("adaptive"), carried,
                last[0].stateChoices().getFirst());
    }

    private static ChainResult chain(RpccClient client, ChainState state, StateFallback fallback) {
        return client.runChain(ChainCall.to("a", "noop").params("x").chainingFunction(StateSize.TO_B).state(state)
                .stateFallback(fallback));
    }

    private static void twoRpcs(RpccClient client) {
        client.call("a", "noop", "x").join();
        client.call("b", "noop", "x").join();
    }

    private static long oneWay(WanTopology t, String from, String to) {
        return t.link(from, to).latency().toNanos();
    }

    /** Client → A with the state, A → B, B → client. */
    public static double idealChainMs(WanTopology t, long stateBytes) {
        String b = siteOfB(t);
        return (oneWay(t, WanTopology.REDMOND, WanTopology.MOUNTAIN_VIEW)
                + t.link(WanTopology.REDMOND, WanTopology.MOUNTAIN_VIEW).transmissionNanos(stateBytes)
                + oneWay(t, WanTopology.MOUNTAIN_VIEW, b) + oneWay(t, b, WanTopology.REDMOND)) / 1e6;
    }

    /** A round trip to each server. */
    public static double idealRpcMs(WanTopology t) {
        String b = siteOfB(t);
        return (oneWay(t, WanTopology.REDMOND, WanTopology.MOUNTAIN_VIEW) + oneWay(t, WanTopology.MOUNTAIN_VIEW, WanTopology.REDMOND)
                + oneWay(t, WanTopology.REDMOND, b) + oneWay(t, b, WanTopology.REDMOND)) / 1e6;
    }

    /** The state size at which the ideal chain and RPC lines cross. */
    public static double idealCrossoverKb(WanTopology t) {
        double savedMs = idealRpcMs(t) - idealChainMs(t, 0);
        return savedMs / 1000 * t.link(WanTopology.REDMOND, WanTopology.MOUNTAIN_VIEW).bytesPerSecond() / 1024;
    }

    /** How far the adaptive line is above the lower of the other two at {@code kb}, in percent. */
    public static double overMinPercent(Results r, int kb, String label) {
        double min = Math.min(r.measured("chain", kb, label).medianMs(), r.measured("rpc", kb, label).medianMs());
        return 100 * (r.measured("adaptive", kb, label).medianMs() / min - 1);
    }

    private static String runs(List<Double> ms) {
        return ms.stream().map(m -> String.format(Locale.ROOT, "%.0f", m)).collect(java.util.stream.Collectors.joining(" "));
    }

    private static void printTable(Sweep sweep, WanTopology t, String label, int runs) {
        Results results = sweep.results();
        System.out.println("Chain, two RPCs and adaptive against chain state size (figure 10): client in Redmond, servers "
                + label + (label.equals("same site") ? " in Mountain View" : ""));
        System.out.printf(Locale.ROOT, "  %8s %14s %8s %14s %8s %14s %8s %8s %8s%n", "state KB", "chain ms", "vs ideal",
                "rpc ms", "vs ideal", "adaptive ms", "vs min", "carried", "again");
        double worst = Double.NEGATIVE_INFINITY;
        int worstKb = 0;
        int missed = 0;
        int missedAgain = 0;
        List<Measurement> chainLine = new ArrayList<>();
        for (Measurement c : results.lines()) {
            if (!c.variant().equals("chain")) {
                continue;
            }
            chainLine.add(c);
            Cell cell = sweep.cells().get(c.param());
            Measurement r = results.measured("rpc", c.param(), label);
            double over = cell.overMinPercent();
            if (over > worst) {
                worst = over;
                worstKb = c.param();
            }
            Cell again = sweep.reruns().get(c.param());
            if (again != null) {
                missed++;
                missedAgain += again.overMinPercent() > GOAL_PERCENT ? 1 : 0;
            }
            System.out.printf(Locale.ROOT, "  %8d %7.1f ±%5.1f %8s %7.1f ±%5.1f %8s %7.1f ±%5.1f %7.1f%% %7.0f%% %8s%n",
                    c.param(), cell.median("chain"), cell.halfSpread("chain"), results.versusIdeal(c, "chain"),
                    cell.median("rpc"), cell.halfSpread("rpc"), results.versusIdeal(r, "rpc"), cell.median("adaptive"),
                    cell.halfSpread("adaptive"), over, 100 * cell.carriedShare(),
                    again == null ? "" : String.format(Locale.ROOT, "%.1f%%", again.overMinPercent()));
        }
        System.out.println(Results.idealLegend());
        System.out.println("(medians of " + runs + " runs, the three variants interleaved; ± half the interquartile range;"
                + " vs min: adaptive against the lower of chain and rpc at that size; carried: its runs that sent the state;"
                + " again: vs min when a size over " + (int) GOAL_PERCENT + "% was measured again after the sweep)");
        System.out.println("the adaptive chain's last choice at each size:");
        sweep.cells().forEach((kb, c) -> System.out.printf(Locale.ROOT, "  %6d KB: %s%n", kb, c.lastChoice()));
        sweep.reruns().forEach((kb, again) -> {
            System.out.printf(Locale.ROOT, "  %6d KB, measured again: %s%n", kb, again.lastChoice());
            for (Cell c : List.of(sweep.cells().get(kb), again)) { // each run, to tell noise from a wrong choice
                System.out.printf(Locale.ROOT, "  %6d KB, %s runs (ms): chain %s, rpc %s, adaptive %s%n", kb,
                        c == again ? "again" : "first", runs(c.chain()), runs(c.rpc()), runs(c.adaptive()));
            }
        });
        List<Measurement> lines = new ArrayList<>(chainLine);
        results.lines().stream().filter(m -> m.variant().equals("rpc")).forEach(lines::add);
        System.out.printf(Locale.ROOT, "adaptive at most %+.1f%% over min(chain, rpc) (at %d KB); %d of %d sizes over %d%%, "
                        + "%d of them again when measured again; chain/rpc crossover: measured %.0f KB, computed from the "
                        + "topology %.0f KB (paper: about %d KB)%n", worst, worstKb, missed, chainLine.size(),
                (int) GOAL_PERCENT, missedAgain, StateSize.measuredCrossoverKb(lines), idealCrossoverKb(t),
                label.equals("same site") ? 150 : 100);
    }
}
