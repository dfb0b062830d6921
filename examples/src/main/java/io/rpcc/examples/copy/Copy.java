package io.rpcc.examples.copy;

import io.rpcc.client.ChainCall;
import io.rpcc.client.RpccClient;
import io.rpcc.core.ChainState;
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
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Semaphore;

/**
 * The storage copy application and the paper's figure 11: a client copies a file between two
 * storage servers in Mountain View, either through itself (RPC copy: read from one, write to the
 * other) or server to server (chain copy), with the same pipelining depth, on the emulated
 * figure 7 topology. Prints a table, or with {@code --json} one {@link Measurement} per line
 * ({@code param} is the file size in KB, {@code client} the client's site, with
 * {@code bytes_via_client}); writes the chart {@code figure-11-copy.png}.
 *
 * <pre>
 * java -jar examples/target/rpcc-examples.jar copy [--json] [--sizes 25,100,250,500] [--client Redmond] [--runs 5] [--charts DIR]
 * </pre>
 */
public final class Copy {
    /** Block size of reads and writes. */
    public static final int BLOCK = 32 * 1024;
    /** Blocks in flight at once, in both variants. */
    public static final int DEPTH = 8;
    /**
     * The local client's site: a separate subnet of Mountain View, 2 ms ping and 10 MB/s away from
     * the servers, as in the paper's local setting.
     */
    public static final String MOUNTAIN_VIEW_LAN = "Mountain View LAN";

    /** Figure 7, plus the local client's subnet. */
    public static WanTopology topology() {
        WanTopology.Builder b = WanTopology.paperFigure7().toBuilder()
                .link(MOUNTAIN_VIEW_LAN, WanTopology.MOUNTAIN_VIEW, java.time.Duration.ofMillis(1), 10_000_000);
        WanTopology base = WanTopology.paperFigure7();
        for (String site : base.sites()) {
            if (!site.equals(WanTopology.MOUNTAIN_VIEW)) { // the LAN reaches other sites as Mountain View does
                WanTopology.Link l = base.link(WanTopology.MOUNTAIN_VIEW, site);
                b.link(MOUNTAIN_VIEW_LAN, site, l.latency(), l.bytesPerSecond());
            }
        }
        return b.build();
    }

    private Copy() {
    }

    static final String SCENARIO = "copy";

    public static void main(String[] args) throws Exception {
        Options o = Options.parse(args, "--sizes", "--client", "--runs");
        int runs = o.integer("--runs", 5);
        List<String> clients = o.string("--client", null) != null ? List.of(o.string("--client", null))
                : List.of(MOUNTAIN_VIEW_LAN, WanTopology.REDMOND, WanTopology.BEIJING);
        Results results = run(clients, o.integers("--sizes", List.of(25, 100, 250, 500)), runs, o.warmUp());
        Path chart = Charts.line(o.charts(), "figure-11-copy", "Copy time vs file size and client site (figure 11)",
                "file size (KB)", "copy time (ms)", results.lines(), m -> m.label() + ", " + m.site(), Measurement::param,
                Measurement::medianMs);
        results.print(o, chart, () -> {
            System.out.println("Copy between two storage servers in Mountain View (figure 11), " + runs
                    + " runs, median; block " + BLOCK / 1024 + " KB, pipelining depth " + DEPTH);
            System.out.printf(Locale.ROOT, "  %-18s %5s %9s %9s %8s %9s %9s %8s %9s  %s%n", "client", "KB", "chain ms", "ideal",
                    "vs ideal", "rpc ms", "ideal", "vs ideal", "speed-up", "bytes via client (chain / rpc)");
            for (Measurement chain : results.lines()) {
                if (chain.variant().equals("chain")) {
                    Measurement rpc = results.measured("rpc", chain.param(), chain.site());
                    System.out.printf(Locale.ROOT, "  %-18s %5d %9.1f %9.1f %8s %9.1f %9.1f %8s %8.1fx  %d / %d%n",
                            chain.site(), chain.param(), chain.medianMs(),
                            results.ideal("chain", chain.param(), chain.site()).medianMs(), results.versusIdeal(chain, "chain"),
                            rpc.medianMs(), results.ideal("rpc", chain.param(), chain.site()).medianMs(),
                            results.versusIdeal(rpc, "rpc"), rpc.medianMs() / chain.medianMs(), chain.bytesViaClient(),
                            rpc.bytesViaClient());
                }
            }
            System.out.println(Results.idealLegend());
            System.out.println("(speed-up: rpc / chain; paper: chain copy up to 2x faster locally and up to 5x from Beijing)");
        });
    }

    /** Runs the copy for every client site and file size, both variants alternately. */
    public static Results run(List<String> clientSites, List<Integer> sizesKb, int runs, Duration warmUp)
            throws Exception {
        WanTopology topology = topology();
        Path dir = Files.createTempDirectory("rpcc-copy");
        Results results = new Results();
        try (WanCluster wan = WanCluster.of(topology, TypeRegistry.of(Block.class))) {
            StorageServer s1 = new StorageServer(dir.resolve("storage-1"));
            StorageServer s2 = new StorageServer(dir.resolve("storage-2"));
            wan.server("storage-1", WanTopology.MOUNTAIN_VIEW, b -> b.service("read", s1::read).service("write", s1::write));
            wan.server("storage-2", WanTopology.MOUNTAIN_VIEW, b -> b.service("read", s2::read).service("write", s2::write));
            ChainingFunctionSource copyBlock = ChainingFunctionSource.javaResource(Copy.class, "/chains/CopyBlock.java");
            Random random = new Random(1);
            // warm up on a file of two rounds of DEPTH blocks, so that pipelining is warm too
            int warmSize = 2 * DEPTH * BLOCK;
            Files.write(s1.root().resolve("warm.bin"), new byte[warmSize]);
            boolean warm = false;
            for (String site : clientSites) {
                RpccClient client = wan.client("client-" + site.replace(' ', '-').toLowerCase(Locale.ROOT), site);
                for (int kb : sizesKb) {
                    byte[] content = new byte[kb * 1024];
                    random.nextBytes(content);
                    String name = "file-" + kb + ".bin";
                    Files.write(s1.root().resolve(name), content);
                    if (!warm) { // warm both paths up once, on the first client
                        Timing.warmUp(warmUp, wan.emulator(), () -> {
                            chainCopy(client, copyBlock, "warm.bin", "warm-chain", warmSize);
                            rpcCopy(client, "warm.bin", "warm-rpc", warmSize);
                        });
                        warm = true;
                    }
                    chainCopy(client, copyBlock, name, "chain-" + name, content.length); // open this client's paths
                    rpcCopy(client, name, "rpc-" + name, content.length);
                    List<Double> chainMs = new ArrayList<>();
                    List<Double> rpcMs = new ArrayList<>();
                    long chainBytes = 0;
                    long rpcBytes = 0;
                    for (int r = 0; r < runs; r++) {
                        wan.emulator().resetCounters();
                        chainMs.add(chainCopy(client, copyBlock, name, "chain-" + name, content.length));
                        chainBytes = viaClient(wan, site);
                        wan.emulator().resetCounters();
                        rpcMs.add(rpcCopy(client, name, "rpc-" + name, content.length));
                        rpcBytes = viaClient(wan, site);
                    }
                    if (!Arrays.equals(content, Files.readAllBytes(s2.root().resolve("chain-" + name)))
                            || !Arrays.equals(content, Files.readAllBytes(s2.root().resolve("rpc-" + name)))) {
                        throw new IllegalStateException("a copy of " + name + " differs from the original");
                    }
                    int hops = CopyModel.hops(content.length, 1);
                    results.add(Measurement.measured(SCENARIO, "chain", kb, Timing.median(chainMs), hops).at(site)
                            .withBytesViaClient(chainBytes));
                    results.add(Measurement.measured(SCENARIO, "rpc", kb, Timing.median(rpcMs), hops).at(site)
                            .withBytesViaClient(rpcBytes));
                    results.add(Measurement.ideal(SCENARIO, "chain", kb, idealMs(topology, site, content.length, true), hops)
                            .at(site));
                    results.add(Measurement.ideal(SCENARIO, "rpc", kb, idealMs(topology, site, content.length, false), hops)
                            .at(site));
                }
            }
        }
        return results;
    }

    private static long viaClient(WanCluster wan, String site) {
        var e = wan.emulator();
        return e.bytesCarried(site, WanTopology.MOUNTAIN_VIEW) + e.bytesCarried(WanTopology.MOUNTAIN_VIEW, site);
    }

    /**
     * The ideal time of one client's copy of {@code bytes} with the same block size and pipelining
     * depth, from the topology alone ({@link CopyModel}).
     *
     * @param chain chain copy (data server to server) or RPC copy (data through the client)
     */
    public static double idealMs(WanTopology t, String clientSite, long bytes, boolean chain) {
        return CopyModel.idealMs(t, clientSite, bytes, chain, 1, 1);
    }

    static double chainCopy(RpccClient client, ChainingFunctionSource cf, String from, String to, int size)
            throws Exception {
        return chainCopy(client, cf, "storage-1", "storage-2", from, to, size);
    }

    /** Chain copy of file {@code from} at server {@code source} to {@code to} at {@code destination}; milliseconds. */
    static double chainCopy(RpccClient client, ChainingFunctionSource cf, String source, String destination, String from,
                            String to, int size) throws Exception {
        long start = System.nanoTime();
        Semaphore window = new Semaphore(DEPTH);
        List<CompletableFuture<?>> all = new ArrayList<>();
        for (long offset = 0; offset < size; offset += BLOCK) {
            window.acquire();
            all.add(client.startChain(ChainCall.to(source, "read").params(new Block(from, offset, BLOCK, null))
                    .chainingFunction(cf).state(ChainState.of("destination", destination, "to", to, "offset", offset)))
                    .whenComplete((r, e) -> window.release()));
        }
        CompletableFuture.allOf(all.toArray(CompletableFuture[]::new)).join();
        return (System.nanoTime() - start) / 1e6;
    }

    static double rpcCopy(RpccClient client, String from, String to, int size) throws Exception {
        return rpcCopy(client, "storage-1", "storage-2", from, to, size);
    }

    /** RPC copy of file {@code from} at server {@code source} to {@code to} at {@code destination}; milliseconds. */
    static double rpcCopy(RpccClient client, String source, String destination, String from, String to, int size)
            throws Exception {
        long start = System.nanoTime();
        Semaphore window = new Semaphore(DEPTH);
        List<CompletableFuture<?>> all = new ArrayList<>();
        for (long offset = 0; offset < size; offset += BLOCK) {
            window.acquire();
            long at = offset;
            all.add(client.call(source, "read", new Block(from, at, BLOCK, null))
                    .thenCompose(r -> client.call(destination, "write", new Block(to, at, BLOCK, (byte[]) r.value())))
                    .whenComplete((r, e) -> window.release()));
        }
        CompletableFuture.allOf(all.toArray(CompletableFuture[]::new)).join();
        return (System.nanoTime() - start) / 1e6;
    }
}
