package io.rpcc.examples.statesize;

import io.rpcc.client.ChainCall;
import io.rpcc.client.RpccClient;
import io.rpcc.core.ChainState;
import io.rpcc.core.ChainingFunctionSource;
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
import java.util.Locale;

/**
 * The paper's figure 10 (section 5.2.2): a chain through two no-op servers in Mountain View,
 * started from Redmond with {@code S} bytes of chain state, against two plain RPCs to the same
 * servers (which leave the state at the client). The chain saves a wide-area round trip but sends
 * the state; the lines cross where {@code S / bandwidth} equals the saved latency. Prints a table
 * and the crossover (measured and computed from the topology), or with {@code --json} one
 * {@link Measurement} per line ({@code param} is the state size in KB); writes the chart
 * {@code figure-10-state-size.png}.
 *
 * <pre>
 * java -jar examples/target/rpcc-examples.jar state-size [--json] [--sizes 0,100,200] [--runs 5] [--charts DIR]
 * </pre>
 *
 * <p>With {@code --adaptive}, {@link AdaptiveStateSize} runs instead: the same chain with the adaptive
 * state fall-back beside chain mode and the two RPCs.
 */
public final class StateSize {
    static final String SCENARIO = "state-size";

    static final ChainingFunctionSource TO_B = ChainingFunctionSource.java("""
            import io.rpcc.core.*;
            /** At server A: on to server B, leaving the state behind. */
            public class ToB implements ChainingFunction {
                public NextHop apply(ChainState state, Object result) {
                    return NextHop.callThenEnd("b", "noop", result);
                }
            }
            """);

    private StateSize() {
    }

    public static void main(String[] args) throws Exception {
        if (java.util.Arrays.asList(args).contains("--adaptive")) {
            AdaptiveStateSize.main(java.util.Arrays.stream(args).filter(a -> !a.equals("--adaptive")).toArray(String[]::new));
            return;
        }
        Options o = Options.parse(args, "--sizes", "--runs");
        WanTopology t = WanTopology.paperFigure7();
        Results results = run(t, o.integers("--sizes", List.of(0, 50, 100, 150, 200, 250, 300)), o.integer("--runs", 5), o.warmUp());
        Path chart = Charts.line(o.charts(), "figure-10-state-size", "Chain vs two RPCs against state size (figure 10)",
                "chain state (KB)", "latency (ms)", results.lines(), Measurement::label, Measurement::param,
                Measurement::medianMs);
        results.print(o, chart, () -> {
            System.out.println("Chain vs two RPCs against chain state size (figure 10): client in Redmond, servers in Mountain View");
            System.out.printf(Locale.ROOT, "  %8s %9s %9s %8s %9s %9s %8s%n", "state KB", "chain ms", "ideal", "vs ideal",
                    "rpc ms", "ideal", "vs ideal");
            for (Measurement c : results.lines()) {
                if (c.variant().equals("chain")) {
                    Measurement r = results.measured("rpc", c.param(), null);
                    System.out.printf(Locale.ROOT, "  %8d %9.1f %9.1f %8s %9.1f %9.1f %8s%n", c.param(), c.medianMs(),
                            results.ideal("chain", c.param(), null).medianMs(), results.versusIdeal(c, "chain"), r.medianMs(),
                            results.ideal("rpc", c.param(), null).medianMs(), results.versusIdeal(r, "rpc"));
                }
            }
            System.out.println(Results.idealLegend());
            System.out.printf(Locale.ROOT, "crossover: measured %.0f KB, computed from the topology %.0f KB (paper: about 150 KB)%n",
                    measuredCrossoverKb(results.lines()), idealCrossoverKb(t));
        });
    }

    /** Measures both variants, alternately, at each state size, after warming both up. */
    public static Results run(WanTopology t, List<Integer> sizesKb, int runs, Duration warmUp) throws Exception {
        Results results = new Results();
        try (WanCluster wan = WanCluster.of(t)) {
            wan.server("a", WanTopology.MOUNTAIN_VIEW, b -> b.service("noop", p -> p));
            wan.server("b", WanTopology.MOUNTAIN_VIEW, b -> b.service("noop", p -> p));
            RpccClient client = wan.client("client", WanTopology.REDMOND);
            ChainState empty = ChainState.of("blob", new byte[0]);
            Timing.warmUp(warmUp, wan.emulator(), () -> {
                chain(client, empty);
                twoRpcs(client);
            });
            for (int kb : sizesKb) {
                ChainState state = ChainState.of("blob", new byte[kb * 1024]);
                List<Double> chain = new ArrayList<>();
                List<Double> rpc = new ArrayList<>();
                for (int r = -2; r < runs; r++) { // r < 0: the first two of this size are not counted
                    double c = Timing.millis(() -> chain(client, state));
                    double p = Timing.millis(() -> twoRpcs(client));
                    if (r >= 0) {
                        chain.add(c);
                        rpc.add(p);
                    }
                }
                results.add(Measurement.measured(SCENARIO, "chain", kb, Timing.median(chain), 2));
                results.add(Measurement.measured(SCENARIO, "rpc", kb, Timing.median(rpc), 2));
                results.add(Measurement.ideal(SCENARIO, "chain", kb, idealChainMs(t, kb * 1024L), 2));
                results.add(Measurement.ideal(SCENARIO, "rpc", kb, idealRpcMs(t), 2));
            }
        }
        return results;
    }

    private static void chain(RpccClient client, ChainState state) {
        client.runChain(ChainCall.to("a", "noop").params("x").chainingFunction(TO_B).state(state));
    }

    private static void twoRpcs(RpccClient client) {
        client.call("a", "noop", "x").join();
        client.call("b", "noop", "x").join();
    }

    private static WanTopology.Link up(WanTopology t) {
        return t.link(WanTopology.REDMOND, WanTopology.MOUNTAIN_VIEW);
    }

    /** Client → A with the state, A → B, B → client. */
    public static double idealChainMs(WanTopology t, long stateBytes) {
        return (up(t).latency().toNanos() + up(t).transmissionNanos(stateBytes)
                + t.link(WanTopology.MOUNTAIN_VIEW, WanTopology.MOUNTAIN_VIEW).latency().toNanos()
                + t.link(WanTopology.MOUNTAIN_VIEW, WanTopology.REDMOND).latency().toNanos()) / 1e6;
    }

    /** Two round trips client ↔ Mountain View. */
    public static double idealRpcMs(WanTopology t) {
        return 2 * (up(t).latency().toNanos() + t.link(WanTopology.MOUNTAIN_VIEW, WanTopology.REDMOND).latency().toNanos())
                / 1e6;
    }

    /** The state size at which the ideal lines cross. */
    public static double idealCrossoverKb(WanTopology t) {
        double savedMs = idealRpcMs(t) - idealChainMs(t, 0);
        return savedMs / 1000 * up(t).bytesPerSecond() / 1024;
    }

    /** Where the measured chain line crosses the measured RPC line (linear interpolation; RPC averaged). */
    public static double measuredCrossoverKb(List<Measurement> lines) {
        List<Measurement> chain = lines.stream().filter(r -> r.variant().equals("chain")).toList();
        double rpc = lines.stream().filter(r -> r.variant().equals("rpc")).mapToDouble(Measurement::medianMs).average().orElse(0);
        for (int i = 1; i < chain.size(); i++) {
            Measurement a = chain.get(i - 1);
            Measurement b = chain.get(i);
            if (a.medianMs() <= rpc && b.medianMs() >= rpc) {
                return a.param() + (rpc - a.medianMs()) / (b.medianMs() - a.medianMs()) * (b.param() - a.param());
            }
        }
        return Double.NaN;
    }
}
