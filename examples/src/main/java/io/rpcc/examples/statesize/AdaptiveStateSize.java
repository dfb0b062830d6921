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
        int runs = o.integer("--runs", 5);
        int apart = o.integer("--apart-ms", -1);
        List<Integer> settings = apart < 0 ? List.of(0, 15) : List.of(apart);
        Results all = new Results();
        List<Runnable> tables = new ArrayList<>();
        List<Path> charts = new ArrayList<>();
        for (int ms : settings) {
            WanTopology t = topology(ms);
            String label = label(ms);
            Sweep sweep = run(t, sizes, runs, o.warmUp(), label);
            Results results = sweep.results();
            results.lines().forEach(all::add);
            charts.add(Charts.line(o.charts(), ms == 0 ? "figure-10-adaptive" : "figure-10-adaptive-apart",
                    "Chain, two RPCs and adaptive against state size (figure 10, servers " + label + ")",
                    "chain state (KB, log scale)", "latency (ms, log scale)", results.lines(), Measurement::label,
                    Measurement::param, Measurement::medianMs, true));
            tables.add(() -> printTable(sweep, t, label));
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
     * What {@link #run} measured: the lines (each {@code at} the setting's label), and for each state
     * size the share of the adaptive chain's counted runs that carried the state, and its last choice.
     */
    public record Sweep(Results results, Map<Integer, Double> carried, Map<Integer, StateChoice> lastChoice) {
    }

    /** Measures the three variants, alternately, at each state size, after warming them up. */
    public static Sweep run(WanTopology t, List<Integer> sizesKb, int runs, Duration warmUp, String label)
            throws Exception {
        Results results = new Results();
        Map<Integer, Double> carriedShare = new LinkedHashMap<>();
        Map<Integer, StateChoice> lastChoice = new LinkedHashMap<>();
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
                ChainState state = ChainState.of("blob", new byte[kb * 1024]);
                List<Double> chain = new ArrayList<>();
                List<Double> rpc = new ArrayList<>();
                List<Double> adaptive = new ArrayList<>();
                int carried = 0;
                ChainResult[] last = new ChainResult[1];
                for (int r = -2; r < runs; r++) { // r < 0: the first two of this size are not counted
                    double c = Timing.millis(() -> chain(client, state, StateFallback.NEVER));
                    double p = Timing.millis(() -> twoRpcs(client));
                    double a = Timing.millis(() -> last[0] = chain(client, state, StateFallback.ADAPTIVE));
                    if (r >= 0) {
                        chain.add(c);
                        rpc.add(p);
                        adaptive.add(a);
                        carried += last[0].stateChoices().getFirst().carried() ? 1 : 0;
                    }
                }
                results.add(Measurement.measured(SCENARIO, "chain", kb, Timing.median(chain), 2).at(label));
                results.add(Measurement.measured(SCENARIO, "rpc", kb, Timing.median(rpc), 2).at(label));
                results.add(Measurement.measured(SCENARIO, "adaptive", kb, Timing.median(adaptive), 2).at(label));
                carriedShare.put(kb, runs == 0 ? 0 : (double) carried / runs);
                lastChoice.put(kb, last[0].stateChoices().getFirst());
                results.add(Measurement.ideal(SCENARIO, "chain", kb, idealChainMs(t, kb * 1024L), 2).at(label));
                results.add(Measurement.ideal(SCENARIO, "rpc", kb, idealRpcMs(t), 2).at(label));
            }
        }
        return new Sweep(results, carriedShare, lastChoice);
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

    private static void printTable(Sweep sweep, WanTopology t, String label) {
        Results results = sweep.results();
        System.out.println("Chain, two RPCs and adaptive against chain state size (figure 10): client in Redmond, servers "
                + label + (label.equals("same site") ? " in Mountain View" : ""));
        System.out.printf(Locale.ROOT, "  %8s %9s %8s %9s %8s %11s %8s %8s%n", "state KB", "chain ms", "vs ideal", "rpc ms",
                "vs ideal", "adaptive ms", "vs min", "carried");
        double worst = Double.NEGATIVE_INFINITY;
        int worstKb = 0;
        List<Measurement> chainLine = new ArrayList<>();
        for (Measurement c : results.lines()) {
            if (!c.variant().equals("chain")) {
                continue;
            }
            chainLine.add(c);
            Measurement r = results.measured("rpc", c.param(), label);
            Measurement a = results.measured("adaptive", c.param(), label);
            double over = overMinPercent(results, c.param(), label);
            if (over > worst) {
                worst = over;
                worstKb = c.param();
            }
            System.out.printf(Locale.ROOT, "  %8d %9.1f %8s %9.1f %8s %11.1f %7.1f%% %7.0f%%%n", c.param(), c.medianMs(),
                    results.versusIdeal(c, "chain"), r.medianMs(), results.versusIdeal(r, "rpc"), a.medianMs(), over,
                    100 * sweep.carried().get(c.param()));
        }
        System.out.println(Results.idealLegend());
        System.out.println("(vs min: adaptive against the lower of chain and rpc at that size; carried: its runs that sent the state)");
        System.out.println("the adaptive chain's last choice at each size:");
        sweep.lastChoice().forEach((kb, c) -> System.out.printf(Locale.ROOT, "  %6d KB: %s%n", kb, c));
        List<Measurement> lines = new ArrayList<>(chainLine);
        results.lines().stream().filter(m -> m.variant().equals("rpc")).forEach(lines::add);
        System.out.printf(Locale.ROOT, "adaptive at most %+.1f%% over min(chain, rpc) (at %d KB); chain/rpc crossover: "
                        + "measured %.0f KB, computed from the topology %.0f KB (paper: about %d KB)%n", worst, worstKb,
                StateSize.measuredCrossoverKb(lines), idealCrossoverKb(t), label.equals("same site") ? 150 : 100);
    }
}
