package io.rpcc.examples.copy;

import io.rpcc.client.RpccClient;
import io.rpcc.core.ChainingFunctionSource;
import io.rpcc.core.TypeRegistry;
import io.rpcc.examples.Charts;
import io.rpcc.examples.Measurement;
import io.rpcc.examples.Options;
import io.rpcc.examples.Results;
import io.rpcc.examples.Timing;
import io.rpcc.testkit.WanCluster;
import io.rpcc.testkit.WanTopology;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Random;
import java.util.concurrent.CompletableFuture;

/**
 * The paper's figure 12: throughput and latency of copying under load. {@code n} clients in
 * Redmond copy 256 KB files between the two storage servers in Mountain View at the same time;
 * throughput and per-file latency are computed from the slowest client, as in the paper. RPC copy
 * is bounded by the Mountain View–Redmond link (6.3 MB/s), chain copy by the servers' own link.
 * Ideals come from {@link CopyModel} with the same number of clients and files. Prints a table,
 * or with {@code --json} one {@link Measurement} per line ({@code param} is the number of
 * clients); writes the chart {@code figure-12-copy-load.png} (time per file against throughput).
 *
 * <pre>
 * java -jar examples/target/rpcc-examples.jar copy-load [--json] [--clients 1,2,4,8] [--files 4] [--charts DIR]
 * </pre>
 */
public final class CopyUnderLoad {
    static final String SCENARIO = "copy-load";
    static final int FILE_KB = 256;

    private CopyUnderLoad() {
    }

    public static void main(String[] args) throws Exception {
        Options o = Options.parse(args, "--clients", "--files");
        int files = o.integer("--files", 4);
        Results results = run(o.integers("--clients", List.of(1, 2, 4, 8)), files, o.warmUp());
        Path chart = Charts.line(o.charts(), "figure-12-copy-load", "Copy under load: time per file vs throughput (figure 12)",
                "throughput (MB/s)", "time per file (ms)", results.lines(), Measurement::label,
                Measurement::throughputMbS, Measurement::medianMs);
        results.print(o, chart, () -> {
            System.out.println("Copy under load (figure 12): clients in Redmond, " + files + " files of " + FILE_KB
                    + " KB each, servers in Mountain View");
            System.out.printf(Locale.ROOT, "  %7s %10s %9s %9s %8s %10s %9s %9s %8s%n", "clients", "chain MB/s", "ms/file",
                    "ideal", "vs ideal", "rpc MB/s", "ms/file", "ideal", "vs ideal");
            double peakChain = 0;
            double peakRpc = 0;
            for (Measurement c : results.lines()) {
                if (c.variant().equals("chain")) {
                    Measurement r = results.measured("rpc", c.param(), null);
                    peakChain = Math.max(peakChain, c.throughputMbS());
                    peakRpc = Math.max(peakRpc, r.throughputMbS());
                    System.out.printf(Locale.ROOT, "  %7d %10.2f %9.1f %9.1f %8s %10.2f %9.1f %9.1f %8s%n", c.param(),
                            c.throughputMbS(), c.medianMs(), results.ideal("chain", c.param(), null).medianMs(),
                            results.versusIdeal(c, "chain"), r.throughputMbS(), r.medianMs(),
                            results.ideal("rpc", c.param(), null).medianMs(), results.versusIdeal(r, "rpc"));
                }
            }
            System.out.println(Results.idealLegend());
            System.out.printf(Locale.ROOT, "peak: chain %.2f MB/s, rpc %.2f MB/s (%.2fx; paper: 10.4 vs 4.5 MB/s)%n",
                    peakChain, peakRpc, peakChain / peakRpc);
        });
    }

    /**
     * Runs every load point, chain then RPC; {@code median_ms} is the slowest client's time per
     * file, {@code throughput_mb_s} the total from it.
     */
    public static Results run(List<Integer> loads, int files, Duration warmUp) throws Exception {
        Path dir = Files.createTempDirectory("rpcc-copy-load");
        Results results = new Results();
        WanTopology topology = Copy.topology();
        try (WanCluster wan = WanCluster.of(topology, TypeRegistry.of(Block.class));
             var parallel = java.util.concurrent.Executors.newVirtualThreadPerTaskExecutor()) {
            StorageServer s1 = new StorageServer(dir.resolve("storage-1"));
            StorageServer s2 = new StorageServer(dir.resolve("storage-2"));
            wan.server("storage-1", WanTopology.MOUNTAIN_VIEW, b -> b.service("read", s1::read).service("write", s1::write));
            wan.server("storage-2", WanTopology.MOUNTAIN_VIEW, b -> b.service("read", s2::read).service("write", s2::write));
            ChainingFunctionSource copyBlock = ChainingFunctionSource.javaResource(Copy.class, "/chains/CopyBlock.java");
            byte[] content = new byte[FILE_KB * 1024];
            new Random(2).nextBytes(content);
            Files.write(s1.root().resolve("f.bin"), content);
            int maxClients = loads.stream().mapToInt(Integer::intValue).max().orElse(1);
            List<RpccClient> clients = new ArrayList<>();
            for (int c = 0; c < maxClients; c++) {
                RpccClient client = wan.client("client-" + c, WanTopology.REDMOND);
                Copy.chainCopy(client, copyBlock, "f.bin", "warm-" + c, content.length);
                Copy.rpcCopy(client, "f.bin", "warm-" + c, content.length);
                clients.add(client);
            }
            Timing.warmUp(warmUp, wan.emulator(), () -> {
                Copy.chainCopy(clients.get(0), copyBlock, "f.bin", "warm-0", content.length);
                Copy.rpcCopy(clients.get(0), "f.bin", "warm-0", content.length);
            });
            for (int n : loads) {
                for (boolean chain : new boolean[] {true, false}) {
                    List<CompletableFuture<Double>> each = new ArrayList<>();
                    for (int c = 0; c < n; c++) {
                        RpccClient client = clients.get(c);
                        int id = c;
                        each.add(CompletableFuture.supplyAsync(() -> {
                            long start = System.nanoTime();
                            try {
                                for (int f = 0; f < files; f++) {
                                    String to = (chain ? "chain-" : "rpc-") + id + "-" + f;
                                    if (chain) {
                                        Copy.chainCopy(client, copyBlock, "f.bin", to, content.length);
                                    } else {
                                        Copy.rpcCopy(client, "f.bin", to, content.length);
                                    }
                                }
                            } catch (Exception e) {
                                throw new IllegalStateException(e);
                            }
                            return (System.nanoTime() - start) / 1e6;
                        }, parallel));
                    }
                    double slowestMs = 0;
                    for (CompletableFuture<Double> f : each) {
                        slowestMs = Math.max(slowestMs, f.join());
                    }
                    double mb = (double) n * files * content.length / 1_000_000;
                    String variant = chain ? "chain" : "rpc";
                    int hops = CopyModel.hops(content.length, 1);
                    results.add(Measurement.measured(SCENARIO, variant, n, slowestMs / files, hops)
                            .withThroughput(mb / (slowestMs / 1000)));
                    double idealMs = CopyModel.idealMs(topology, WanTopology.REDMOND, content.length, chain, n, files);
                    results.add(Measurement.ideal(SCENARIO, variant, n, idealMs / files, hops)
                            .withThroughput(mb / (idealMs / 1000)));
                }
            }
        }
        return results;
    }
}
