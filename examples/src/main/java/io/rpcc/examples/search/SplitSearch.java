package io.rpcc.examples.search;

import io.rpcc.client.ChainCall;
import io.rpcc.client.RpccClient;
import io.rpcc.core.ChainResult;
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
 * Split and merge on the emulated WAN (paper 3.10): a search whose index is sharded across sites.
 * The client and the front end are in Redmond; the shards are in Mountain View, Beijing and
 * Cambridge. The split chain parses the query at the front end, fans it out to every shard at once
 * and merges the hits back at the front end, near the client; the sequential chain does the same
 * work as hops, front end → shard → shard → ..., the last shard sending the hits to the client.
 * For 1 to 3 shards, each is measured beside its ideal computed from the topology (within 10 % +
 * 1 ms per hop: parse, the slowest search and the merge for the split; parse and every search for
 * the sequential chain), side by side; the split is faster as soon as there are two shards. Prints a
 * table, or with {@code --json} one {@link Measurement} per line ({@code param} is the number of
 * shards); writes the chart {@code split-search.png}.
 *
 * <pre>
 * java -jar examples/target/rpcc-examples.jar search [--json] [--shards 1,2,3] [--runs 5] [--charts DIR]
 * </pre>
 */
public final class SplitSearch {
    static final String SCENARIO = "split-search";
    static final String CLIENT_SITE = WanTopology.REDMOND;
    /** The shards, in order: one per remote site. */
    static final List<String> SHARDS = List.of("shard-mv", "shard-bj", "shard-cam");
    static final List<String> SHARD_SITES = List.of(WanTopology.MOUNTAIN_VIEW, WanTopology.BEIJING,
            WanTopology.CAMBRIDGE);
    static final ChainingFunctionSource SPLIT =
            ChainingFunctionSource.javaResource(SplitSearch.class, "/chains/ShardedSearch.java");
    static final ChainingFunctionSource SEQUENTIAL =
            ChainingFunctionSource.javaResource(SplitSearch.class, "/chains/SequentialSearch.java");

    private SplitSearch() {
    }

    public static void main(String[] args) throws Exception {
        Options o = Options.parse(args, "--shards", "--runs");
        WanTopology t = WanTopology.paperFigure7();
        Results results = run(t, o.integers("--shards", List.of(1, 2, 3)), o.integer("--runs", 5), o.warmUp());
        Path chart = Charts.line(o.charts(), "split-search", "Search over sharded sites: split and merge vs sequential hops",
                "shards", "latency (ms)", results.lines(), Measurement::label, Measurement::param, Measurement::medianMs);
        results.print(o, chart, () -> {
            System.out.println("Search over shards in " + String.join(", ", SHARD_SITES) + "; client and front end in "
                    + CLIENT_SITE + ": split and merge at the front end vs the same work as sequential hops");
            System.out.printf(Locale.ROOT, "  %6s %9s %9s %8s %11s %9s %8s %8s%n", "shards", "split ms", "ideal",
                    "vs ideal", "sequential", "ideal", "vs ideal", "speedup");
            for (Measurement s : results.lines()) {
                if (s.variant().equals("split") && !s.isIdeal()) {
                    Measurement q = results.measured("sequential", s.param(), null);
                    System.out.printf(Locale.ROOT, "  %6d %9.1f %9.1f %8s %11.1f %9.1f %8s %7.2fx%n", s.param(),
                            s.medianMs(), results.ideal("split", s.param(), null).medianMs(),
                            results.versusIdeal(s, "split"), q.medianMs(),
                            results.ideal("sequential", s.param(), null).medianMs(),
                            results.versusIdeal(q, "sequential"), q.medianMs() / s.medianMs());
                }
            }
            System.out.println(Results.idealLegend());
        });
    }

    /** The hits of {@code shard} for {@code query}: a few, named after the shard. */
    static List<String> search(String shard, Object query) {
        List<String> hits = new ArrayList<>();
        for (int i = 1; i <= 2; i++) {
            hits.add(query + "@" + shard + "#" + i);
        }
        return hits;
    }

    /** Measures both variants, alternately, for each number of shards, after warming both up. */
    public static Results run(WanTopology t, List<Integer> shardCounts, int runs, Duration warmUp) throws Exception {
        Results results = new Results();
        try (WanCluster wan = WanCluster.of(t)) {
            wan.server("front", CLIENT_SITE, b -> b.service("parse", p -> ((String) p).trim().toLowerCase(Locale.ROOT)));
            for (int i = 0; i < SHARDS.size(); i++) {
                String shard = SHARDS.get(i);
                wan.server(shard, SHARD_SITES.get(i), b -> b.service("search", q -> search(shard, q)));
            }
            RpccClient client = wan.client("client", CLIENT_SITE);
            Timing.warmUp(warmUp, wan.emulator(), () -> {
                split(client, SHARDS);
                sequential(client, SHARDS);
            });
            for (int n : shardCounts) {
                List<String> shards = SHARDS.subList(0, n);
                Object splitHits = split(client, shards).value();
                Object sequentialHits = sequential(client, shards).value();
                if (!splitHits.equals(sequentialHits)) {
                    throw new IllegalStateException("the split found " + splitHits + ", the sequential chain "
                            + sequentialHits);
                }
                List<Double> split = new ArrayList<>();
                List<Double> sequential = new ArrayList<>();
                for (int r = -2; r < runs; r++) { // r < 0: not counted
                    double s = Timing.millis(() -> split(client, shards));
                    double q = Timing.millis(() -> sequential(client, shards));
                    if (r >= 0) {
                        split.add(s);
                        sequential.add(q);
                    }
                }
                // hops on the critical path: parse, the slowest shard's search and the merge; parse and every search
                results.add(Measurement.measured(SCENARIO, "split", n, Timing.median(split), 3));
                results.add(Measurement.measured(SCENARIO, "sequential", n, Timing.median(sequential), n + 1));
                results.add(Measurement.ideal(SCENARIO, "split", n, idealSplitMs(t, n), 3));
                results.add(Measurement.ideal(SCENARIO, "sequential", n, idealSequentialMs(t, n), n + 1));
            }
        }
        return results;
    }

    static ChainResult split(RpccClient client, List<String> shards) {
        return client.runChain(ChainCall.to("front", "parse").params(" Rpc Chains ").chainingFunction(SPLIT)
                .state(ChainState.of("step", "split", "shards", new ArrayList<>(shards), "mergeAt", "front")));
    }

    static ChainResult sequential(RpccClient client, List<String> shards) {
        return client.runChain(ChainCall.to("front", "parse").params(" Rpc Chains ").chainingFunction(SEQUENTIAL)
                .state(ChainState.of("shards", new ArrayList<>(shards), "next", 0)));
    }

    private static long oneWay(WanTopology t, String from, String to) {
        return t.link(from, to).latency().toNanos();
    }

    /**
     * Client → front end (in its site), then, at once, front end → each shard → front end (the
     * slowest shard decides), then front end → client.
     */
    public static double idealSplitMs(WanTopology t, int shards) {
        long slowest = 0;
        for (int i = 0; i < shards; i++) {
            slowest = Math.max(slowest, oneWay(t, CLIENT_SITE, SHARD_SITES.get(i)) + oneWay(t, SHARD_SITES.get(i),
                    CLIENT_SITE));
        }
        return (2 * oneWay(t, CLIENT_SITE, CLIENT_SITE) + slowest) / 1e6;
    }

    /** Client → front end → shard 1 → ... → shard n → client. */
    public static double idealSequentialMs(WanTopology t, int shards) {
        long total = oneWay(t, CLIENT_SITE, CLIENT_SITE);
        String at = CLIENT_SITE;
        for (int i = 0; i < shards; i++) {
            total += oneWay(t, at, SHARD_SITES.get(i));
            at = SHARD_SITES.get(i);
        }
        return (total + oneWay(t, at, CLIENT_SITE)) / 1e6;
    }
}
