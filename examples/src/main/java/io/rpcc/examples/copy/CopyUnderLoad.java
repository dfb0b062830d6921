package io.rpcc.examples.copy;

import io.rpcc.client.RpccClient;
import io.rpcc.core.ChainingFunctionSource;
import io.rpcc.core.TypeRegistry;
import io.rpcc.testkit.WanCluster;
import io.rpcc.testkit.WanTopology;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Random;
import java.util.concurrent.CompletableFuture;

/**
 * The paper's figure 12: throughput and latency of copying under load. {@code n} clients in
 * Redmond copy 256 KB files between the two storage servers in Mountain View at the same time;
 * throughput and per-file latency are computed from the slowest client, as in the paper. RPC copy
 * is bounded by the Mountain View–Redmond link (6.3 MB/s), chain copy by the servers' own link.
 *
 * <pre>
 * java -jar examples/target/rpcc-examples.jar copy-load [--json] [--clients 1,2,4,8] [--files 4]
 * </pre>
 */
public final class CopyUnderLoad {
    static final int FILE_KB = 256;

    private CopyUnderLoad() {
    }

    /**
     * One load point.
     *
     * @param variant {@code chain} or {@code rpc}
     * @param clients clients copying at once
     * @param msPerFile the slowest client's time per file
     * @param megabytesPerSecond the total throughput, from the slowest client's time
     */
    public record Row(String variant, int clients, double msPerFile, double megabytesPerSecond) {
        String json() {
            return String.format(Locale.ROOT, "{\"scenario\":\"copy-load\",\"variant\":\"%s\",\"param\":%d,"
                    + "\"median_ms\":%.2f,\"throughput_mb_s\":%.3f}", variant, clients, msPerFile, megabytesPerSecond);
        }
    }

    public static void main(String[] args) throws Exception {
        boolean json = false;
        List<Integer> loads = List.of(1, 2, 4, 8);
        int files = 4;
        for (int i = 0; i < args.length; i++) {
            switch (args[i]) {
                case "--json" -> json = true;
                case "--clients" -> loads = Arrays.stream(args[++i].split(",")).map(Integer::parseInt).toList();
                case "--files" -> files = Integer.parseInt(args[++i]);
                default -> throw new IllegalArgumentException("unknown option " + args[i] + " (use --json, --clients, --files)");
            }
        }
        List<Row> rows = run(loads, files);
        if (json) {
            rows.forEach(r -> System.out.println(r.json()));
            return;
        }
        System.out.println("Copy under load (figure 12): clients in Redmond, " + files + " files of " + FILE_KB
                + " KB each, servers in Mountain View");
        System.out.printf(Locale.ROOT, "  %7s %14s %12s %14s %12s%n", "clients", "chain MB/s", "ms/file", "rpc MB/s", "ms/file");
        double peakChain = 0;
        double peakRpc = 0;
        for (int i = 0; i < rows.size(); i += 2) {
            Row c = rows.get(i);
            Row r = rows.get(i + 1);
            peakChain = Math.max(peakChain, c.megabytesPerSecond());
            peakRpc = Math.max(peakRpc, r.megabytesPerSecond());
            System.out.printf(Locale.ROOT, "  %7d %14.2f %12.1f %14.2f %12.1f%n", c.clients(), c.megabytesPerSecond(),
                    c.msPerFile(), r.megabytesPerSecond(), r.msPerFile());
        }
        System.out.printf(Locale.ROOT, "peak: chain %.2f MB/s, rpc %.2f MB/s (%.2fx; paper: 10.4 vs 4.5 MB/s)%n",
                peakChain, peakRpc, peakChain / peakRpc);
    }

    /** Runs every load point, chain then RPC. */
    public static List<Row> run(List<Integer> loads, int files) throws Exception {
        Path dir = Files.createTempDirectory("rpcc-copy-load");
        List<Row> rows = new ArrayList<>();
        try (WanCluster wan = WanCluster.of(Copy.topology(), TypeRegistry.of(Block.class));
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
                    rows.add(new Row(chain ? "chain" : "rpc", n, slowestMs / files, mb / (slowestMs / 1000)));
                }
            }
        }
        return rows;
    }
}
