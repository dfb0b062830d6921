package io.rpcc.examples.copy;

import static io.rpcc.examples.Medians.median;

import io.rpcc.client.ChainCall;
import io.rpcc.client.RpccClient;
import io.rpcc.core.ChainState;
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
import java.util.concurrent.Semaphore;

/**
 * The storage copy application and the paper's figure 11: a client copies a file between two
 * storage servers in Mountain View, either through itself (RPC copy: read from one, write to the
 * other) or server to server (chain copy), with the same pipelining depth, on the emulated
 * figure 7 topology. Prints a table, or with {@code --json} one object per line with
 * {@code scenario}, {@code variant} ({@code chain}, {@code rpc}, {@code ideal} for chain copy,
 * {@code ideal-rpc} for RPC copy), {@code param}
 * (file size in KB), {@code client} (site), {@code median_ms} and {@code bytes_via_client}.
 *
 * <pre>
 * java -jar examples/target/rpcc-examples.jar copy [--json] [--sizes 25,100,250,500] [--client Redmond] [--runs 5]
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

    /**
     * One measurement.
     *
     * @param variant {@code chain}, {@code rpc} or {@code ideal}
     * @param sizeKb the file's size
     * @param client the client's site
     * @param medianMs the median copy time
     * @param bytesViaClient bytes that crossed the client's links, per copy
     */
    public record Row(String variant, int sizeKb, String client, double medianMs, long bytesViaClient) {
        String json() {
            return String.format(Locale.ROOT, "{\"scenario\":\"copy\",\"variant\":\"%s\",\"param\":%d,"
                    + "\"client\":\"%s\",\"median_ms\":%.2f,\"bytes_via_client\":%d}",
                    variant, sizeKb, client, medianMs, bytesViaClient);
        }
    }

    public static void main(String[] args) throws Exception {
        boolean json = false;
        List<Integer> sizes = List.of(25, 100, 250, 500);
        List<String> clients = List.of(MOUNTAIN_VIEW_LAN, WanTopology.REDMOND, WanTopology.BEIJING);
        int runs = 5;
        for (int i = 0; i < args.length; i++) {
            switch (args[i]) {
                case "--json" -> json = true;
                case "--sizes" -> sizes = Arrays.stream(args[++i].split(",")).map(Integer::parseInt).toList();
                case "--client" -> clients = List.of(args[++i]);
                case "--runs" -> runs = Integer.parseInt(args[++i]);
                default -> throw new IllegalArgumentException("unknown option " + args[i]
                        + " (use --json, --sizes a,b,c, --client SITE, --runs N)");
            }
        }
        List<Row> rows = run(clients, sizes, runs);
        if (json) {
            rows.forEach(r -> System.out.println(r.json()));
            return;
        }
        System.out.println("Copy between two storage servers in Mountain View (figure 11), " + runs
                + " runs, median; block " + BLOCK / 1024 + " KB, pipelining depth " + DEPTH);
        System.out.printf(Locale.ROOT, "  %-18s %5s %9s %9s %9s %9s %9s  %s%n", "client", "KB", "chain ms", "ideal",
                "rpc ms", "ideal", "speed-up", "bytes via client (chain / rpc)");
        for (int i = 0; i < rows.size(); i += 4) {
            Row chain = rows.get(i);
            Row rpc = rows.get(i + 1);
            Row idealChain = rows.get(i + 2);
            Row idealRpc = rows.get(i + 3);
            System.out.printf(Locale.ROOT, "  %-18s %5d %9.1f %9.1f %9.1f %9.1f %8.1fx  %d / %d%n", chain.client(),
                    chain.sizeKb(), chain.medianMs(), idealChain.medianMs(), rpc.medianMs(), idealRpc.medianMs(),
                    rpc.medianMs() / chain.medianMs(), chain.bytesViaClient(), rpc.bytesViaClient());
        }
        System.out.println("(paper: chain copy up to 2x faster locally and up to 5x from Beijing)");
    }

    /** Runs the copy for every client site and file size. */
    public static List<Row> run(List<String> clientSites, List<Integer> sizesKb, int runs) throws Exception {
        WanTopology topology = topology();
        Path dir = Files.createTempDirectory("rpcc-copy");
        List<Row> rows = new ArrayList<>();
        try (WanCluster wan = WanCluster.of(topology, TypeRegistry.of(Block.class))) {
            StorageServer s1 = new StorageServer(dir.resolve("storage-1"));
            StorageServer s2 = new StorageServer(dir.resolve("storage-2"));
            wan.server("storage-1", WanTopology.MOUNTAIN_VIEW, b -> b.service("read", s1::read).service("write", s1::write));
            wan.server("storage-2", WanTopology.MOUNTAIN_VIEW, b -> b.service("read", s2::read).service("write", s2::write));
            ChainingFunctionSource copyBlock = ChainingFunctionSource.javaResource(Copy.class, "/chains/CopyBlock.java");
            Random random = new Random(1);
            for (String site : clientSites) {
                RpccClient client = wan.client("client-" + site.replace(' ', '-').toLowerCase(Locale.ROOT), site);
                for (int kb : sizesKb) {
                    byte[] content = new byte[kb * 1024];
                    random.nextBytes(content);
                    String name = "file-" + kb + ".bin";
                    Files.write(s1.root().resolve(name), content);
                    chainCopy(client, copyBlock, name, "chain-" + name, content.length); // warm up both paths
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
                    rows.add(new Row("chain", kb, site, median(chainMs), chainBytes));
                    rows.add(new Row("rpc", kb, site, median(rpcMs), rpcBytes));
                    rows.add(new Row("ideal", kb, site, idealMs(topology, site, content.length, true), 0));
                    rows.add(new Row("ideal-rpc", kb, site, idealMs(topology, site, content.length, false), 0));
                }
            }
        }
        return rows;
    }

    private static long viaClient(WanCluster wan, String site) {
        var e = wan.emulator();
        return e.bytesCarried(site, WanTopology.MOUNTAIN_VIEW) + e.bytesCarried(WanTopology.MOUNTAIN_VIEW, site);
    }

    /**
     * The ideal copy time with the same block size and pipelining depth, computed from the topology
     * alone (zero processing time): block {@code i} starts when block {@code i - DEPTH} is done; each
     * message pays its link's latency, and data blocks also their transmission time on a link that
     * one block at a time can use.
     *
     * @param chain chain copy (data server to server) or RPC copy (data through the client)
     */
    public static double idealMs(WanTopology t, String clientSite, long bytes, boolean chain) {
        String servers = WanTopology.MOUNTAIN_VIEW;
        WanTopology.Link up = t.link(clientSite, servers);
        WanTopology.Link down = t.link(servers, clientSite);
        WanTopology.Link between = t.link(servers, servers);
        int blocks = (int) ((bytes + BLOCK - 1) / BLOCK);
        long[] done = new long[blocks];
        long upFree = 0;
        long downFree = 0;
        long betweenFree = 0;
        long end = 0;
        for (int i = 0; i < blocks; i++) {
            long size = Math.min(BLOCK, bytes - (long) i * BLOCK);
            long start = i < DEPTH ? 0 : done[i - DEPTH];
            long atSource = start + up.latency().toNanos();
            if (chain) {
                betweenFree = Math.max(betweenFree, atSource) + between.transmissionNanos(size);
                done[i] = betweenFree + between.latency().toNanos() + down.latency().toNanos();
            } else {
                downFree = Math.max(downFree, atSource) + down.transmissionNanos(size);
                long atClient = downFree + down.latency().toNanos();
                upFree = Math.max(upFree, atClient) + up.transmissionNanos(size);
                done[i] = upFree + up.latency().toNanos() + down.latency().toNanos();
            }
            end = Math.max(end, done[i]);
        }
        return end / 1e6;
    }

    static double chainCopy(RpccClient client, ChainingFunctionSource cf, String from, String to, int size)
            throws Exception {
        long start = System.nanoTime();
        Semaphore window = new Semaphore(DEPTH);
        List<CompletableFuture<?>> all = new ArrayList<>();
        for (long offset = 0; offset < size; offset += BLOCK) {
            window.acquire();
            all.add(client.startChain(ChainCall.to("storage-1", "read").params(new Block(from, offset, BLOCK, null))
                    .chainingFunction(cf).state(ChainState.of("destination", "storage-2", "to", to, "offset", offset)))
                    .whenComplete((r, e) -> window.release()));
        }
        CompletableFuture.allOf(all.toArray(CompletableFuture[]::new)).join();
        return (System.nanoTime() - start) / 1e6;
    }

    static double rpcCopy(RpccClient client, String from, String to, int size) throws Exception {
        long start = System.nanoTime();
        Semaphore window = new Semaphore(DEPTH);
        List<CompletableFuture<?>> all = new ArrayList<>();
        for (long offset = 0; offset < size; offset += BLOCK) {
            window.acquire();
            long at = offset;
            all.add(client.call("storage-1", "read", new Block(from, at, BLOCK, null))
                    .thenCompose(r -> client.call("storage-2", "write", new Block(to, at, BLOCK, (byte[]) r.value())))
                    .whenComplete((r, e) -> window.release()));
        }
        CompletableFuture.allOf(all.toArray(CompletableFuture[]::new)).join();
        return (System.nanoTime() - start) / 1e6;
    }
}
