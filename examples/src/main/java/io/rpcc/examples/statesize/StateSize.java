package io.rpcc.examples.statesize;

import static io.rpcc.examples.Medians.median;

import io.rpcc.client.ChainCall;
import io.rpcc.client.RpccClient;
import io.rpcc.core.ChainState;
import io.rpcc.core.ChainingFunctionSource;
import io.rpcc.testkit.WanCluster;
import io.rpcc.testkit.WanTopology;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;

/**
 * The paper's figure 10 (section 5.2.2): a chain through two no-op servers in Mountain View,
 * started from Redmond with {@code S} bytes of chain state, against two plain RPCs to the same
 * servers (which leave the state at the client). The chain saves a wide-area round trip but sends
 * the state; the lines cross where {@code S / bandwidth} equals the saved latency. Prints a table
 * and the crossover (measured and computed from the topology), or with {@code --json} one object
 * per line ({@code scenario}, {@code variant} chain/rpc/ideal/ideal-rpc, {@code param} KB,
 * {@code median_ms}).
 */
public final class StateSize {
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

    /**
     * One measurement.
     *
     * @param variant {@code chain}, {@code rpc}, {@code ideal} or {@code ideal-rpc}
     * @param stateKb the state size
     * @param medianMs the median latency
     */
    public record Row(String variant, int stateKb, double medianMs) {
        String json() {
            return String.format(Locale.ROOT, "{\"scenario\":\"state-size\",\"variant\":\"%s\",\"param\":%d,\"median_ms\":%.2f}",
                    variant, stateKb, medianMs);
        }
    }

    public static void main(String[] args) throws Exception {
        boolean json = false;
        List<Integer> sizes = List.of(0, 50, 100, 150, 200, 250, 300);
        int runs = 5;
        for (int i = 0; i < args.length; i++) {
            switch (args[i]) {
                case "--json" -> json = true;
                case "--sizes" -> sizes = Arrays.stream(args[++i].split(",")).map(Integer::parseInt).toList();
                case "--runs" -> runs = Integer.parseInt(args[++i]);
                default -> throw new IllegalArgumentException("unknown option " + args[i] + " (use --json, --sizes, --runs)");
            }
        }
        WanTopology t = WanTopology.paperFigure7();
        List<Row> rows = run(t, sizes, runs);
        if (json) {
            rows.forEach(r -> System.out.println(r.json()));
            return;
        }
        System.out.println("Chain vs two RPCs against chain state size (figure 10): client in Redmond, servers in Mountain View");
        System.out.printf(Locale.ROOT, "  %8s %9s %9s %9s %9s%n", "state KB", "chain ms", "ideal", "rpc ms", "ideal");
        for (int i = 0; i < rows.size(); i += 4) {
            System.out.printf(Locale.ROOT, "  %8d %9.1f %9.1f %9.1f %9.1f%n", rows.get(i).stateKb(), rows.get(i).medianMs(),
                    rows.get(i + 2).medianMs(), rows.get(i + 1).medianMs(), rows.get(i + 3).medianMs());
        }
        System.out.printf(Locale.ROOT, "crossover: measured %.0f KB, computed from the topology %.0f KB (paper: about 150 KB)%n",
                measuredCrossoverKb(rows), idealCrossoverKb(t));
    }

    /** Measures both variants, alternately, at each state size. */
    public static List<Row> run(WanTopology t, List<Integer> sizesKb, int runs) throws Exception {
        List<Row> rows = new ArrayList<>();
        try (WanCluster wan = WanCluster.of(t)) {
            wan.server("a", WanTopology.MOUNTAIN_VIEW, b -> b.service("noop", p -> p));
            wan.server("b", WanTopology.MOUNTAIN_VIEW, b -> b.service("noop", p -> p));
            RpccClient client = wan.client("client", WanTopology.REDMOND);
            for (int kb : sizesKb) {
                ChainState state = ChainState.of("blob", new byte[kb * 1024]);
                List<Double> chain = new ArrayList<>();
                List<Double> rpc = new ArrayList<>();
                for (int r = -1; r < runs; r++) { // r = -1 warms up
                    long s = System.nanoTime();
                    client.runChain(ChainCall.to("a", "noop").params("x").chainingFunction(TO_B).state(state));
                    double c = (System.nanoTime() - s) / 1e6;
                    s = System.nanoTime();
                    client.call("a", "noop", "x").join();
                    client.call("b", "noop", "x").join();
                    double p = (System.nanoTime() - s) / 1e6;
                    if (r >= 0) {
                        chain.add(c);
                        rpc.add(p);
                    }
                }
                rows.add(new Row("chain", kb, median(chain)));
                rows.add(new Row("rpc", kb, median(rpc)));
                rows.add(new Row("ideal", kb, idealChainMs(t, kb * 1024L)));
                rows.add(new Row("ideal-rpc", kb, idealRpcMs(t)));
            }
        }
        return rows;
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
    public static double measuredCrossoverKb(List<Row> rows) {
        List<Row> chain = rows.stream().filter(r -> r.variant().equals("chain")).toList();
        double rpc = rows.stream().filter(r -> r.variant().equals("rpc")).mapToDouble(Row::medianMs).average().orElse(0);
        for (int i = 1; i < chain.size(); i++) {
            Row a = chain.get(i - 1);
            Row b = chain.get(i);
            if (a.medianMs() <= rpc && b.medianMs() >= rpc) {
                return a.stateKb() + (rpc - a.medianMs()) / (b.medianMs() - a.medianMs()) * (b.stateKb() - a.stateKb());
            }
        }
        return Double.NaN;
    }
}
