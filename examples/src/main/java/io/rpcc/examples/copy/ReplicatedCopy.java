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
import io.rpcc.testkit.WanEmulator;
import io.rpcc.testkit.WanTopology;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Random;

/**
 * The paper's figure 13 (5.3.2, Fig. 5): a client in Cambridge copies a file from a storage server in
 * Mountain View to a replicated one whose primary is in Redmond; the primary's {@code write}
 * replicates each block to its backup in a sub-chain ({@link StorageServer#writeAndReplicate}).
 * Three variants, with the same block size and pipelining depth as figure 11:
 *
 * <ul>
 *   <li>{@code composed} (Fig. 5c): the client's copy chain (read at the source, then write at the
 *       primary) and the primary's replication sub-chain composed: the backup's result goes
 *       straight to the client;
 *   <li>{@code returned} (Fig. 5b): the same chains with composition off at the primary
 *       ({@code subChainComposition(false)}): the backup's result goes back to the primary, which
 *       sends the copy chain's result to the client;
 *   <li>{@code rpc} (Fig. 5a): plain RPCs: the client reads from the source and writes to the
 *       primary, which answers once the backup has.
 * </ul>
 *
 * <p>The paper does not say where the backup is; by default it is in Cambridge (the site of the
 * client, on another machine), the one site of figure 7 from which going back through Redmond costs
 * something: from Mountain View or Beijing, Redmond is on the way to Cambridge (within 1 ms), and a
 * backup in Redmond is a LAN away from the primary. {@code --backup SITE} puts it elsewhere.
 * Prints a table, or with {@code --json} one {@link Measurement} per line ({@code param} is the file
 * size in KB, with {@code bytes_via_primary}: bytes in and out of the primary's site per copy);
 * writes the chart {@code figure-13-replicated-copy.png}.
 *
 * <pre>
 * java -jar examples/target/rpcc-examples.jar replicated-copy [--json] [--sizes 25,100,250,500] [--runs 5] [--backup Cambridge] [--charts DIR]
 * </pre>
 */
public final class ReplicatedCopy {
    static final String SCENARIO = "replicated-copy";
    /** The client's site (paper 5.3.2). */
    public static final String CLIENT = WanTopology.CAMBRIDGE;
    /** The source server's site. */
    public static final String SOURCE = WanTopology.MOUNTAIN_VIEW;
    /** The destination primary's site. */
    public static final String PRIMARY = WanTopology.REDMOND;
    /** The backup's site by default. */
    public static final String BACKUP = WanTopology.CAMBRIDGE;
    /** The variants, in the order of the table. */
    static final List<String> VARIANTS = List.of("composed", "returned", "rpc");

    private ReplicatedCopy() {
    }

    public static void main(String[] args) throws Exception {
        Options o = Options.parse(args, "--sizes", "--runs", "--backup");
        int runs = o.integer("--runs", 5);
        String backup = o.string("--backup", BACKUP);
        Results results = run(backup, o.integers("--sizes", List.of(25, 100, 250, 500)), runs, o.warmUp());
        Path chart = Charts.line(o.charts(), "figure-13-replicated-copy",
                "Replicated copy: composition on vs off vs RPC (figure 13)", "file size (KB)", "copy time (ms)",
                results.lines(), Measurement::label, Measurement::param, Measurement::medianMs);
        results.print(o, chart, () -> {
            System.out.println("Replicated copy (figure 13): client in " + CLIENT + ", source in " + SOURCE + ", primary in "
                    + PRIMARY + ", backup in " + backup + "; " + runs + " runs, median; block " + Copy.BLOCK / 1024
                    + " KB, pipelining depth " + Copy.DEPTH);
            System.out.printf(Locale.ROOT, "  %5s %11s %9s %8s %11s %9s %8s %9s %9s %8s %10s %10s  %s%n", "KB", "composed ms",
                    "ideal", "vs ideal", "returned ms", "ideal", "vs ideal", "rpc ms", "ideal", "vs ideal", "reduction",
                    "ideal red.", "bytes via primary (composed / returned / rpc)");
            for (Measurement composed : results.lines()) {
                if (composed.variant().equals("composed")) {
                    int kb = composed.param();
                    Measurement returned = results.measured("returned", kb, null);
                    Measurement rpc = results.measured("rpc", kb, null);
                    System.out.printf(Locale.ROOT, "  %5d %11.1f %9.1f %8s %11.1f %9.1f %8s %9.1f %9.1f %8s %9.0f%% %9.0f%%  %d / %d / %d%n",
                            kb, composed.medianMs(), results.ideal("composed", kb, null).medianMs(),
                            results.versusIdeal(composed, "composed"), returned.medianMs(),
                            results.ideal("returned", kb, null).medianMs(), results.versusIdeal(returned, "returned"),
                            rpc.medianMs(), results.ideal("rpc", kb, null).medianMs(), results.versusIdeal(rpc, "rpc"),
                            100 * (1 - composed.medianMs() / returned.medianMs()),
                            100 * (1 - results.ideal("composed", kb, null).medianMs()
                                    / results.ideal("returned", kb, null).medianMs()),
                            composed.bytesViaPrimary(), returned.bytesViaPrimary(), rpc.bytesViaPrimary());
                }
            }
            System.out.println(Results.idealLegend());
            System.out.println("(reduction: how much shorter the composed copy is than the returned one; paper: 12-20%)");
        });
    }

    /** Runs the replicated copy of every file size, the three variants alternately. */
    public static Results run(String backupSite, List<Integer> sizesKb, int runs, Duration warmUp) throws Exception {
        WanTopology topology = WanTopology.paperFigure7();
        topology.link(backupSite, backupSite); // fail fast on an unknown site
        if (backupSite.equals(PRIMARY)) {
            throw new Options.UsageException("--backup " + PRIMARY + ": bytes via the primary are counted per site, so the "
                    + "backup needs a site of its own");
        }
        Path dir = Files.createTempDirectory("rpcc-replicated-copy");
        Results results = new Results();
        try (WanCluster wan = WanCluster.of(topology, TypeRegistry.of(Block.class))) {
            StorageServer source = new StorageServer(dir.resolve("source"));
            StorageServer primary = new StorageServer(dir.resolve("primary"));
            StorageServer backup = new StorageServer(dir.resolve("backup"));
            wan.server("source", SOURCE, b -> b.service("read", source::read));
            wan.server("backup", backupSite, b -> b.service("write", backup::write));
            // one store, two nodes: one composes the replication sub-chain with the caller's chain (the
            // default), the other returns the backup's result to itself first
            wan.server("primary", PRIMARY, b -> b.service("write", block -> primary.writeAndReplicate(block, "backup")));
            wan.server("primary-returning", PRIMARY, b -> b.subChainComposition(false)
                    .service("write", block -> primary.writeAndReplicate(block, "backup")));
            RpccClient client = wan.client("client", CLIENT);
            ChainingFunctionSource copyBlock = ChainingFunctionSource.javaResource(Copy.class, "/chains/CopyBlock.java");
            Map<String, Copier> copiers = new LinkedHashMap<>();
            copiers.put("composed", (from, to, size) -> Copy.chainCopy(client, copyBlock, "source", "primary", from, to, size));
            copiers.put("returned", (from, to, size) -> Copy.chainCopy(client, copyBlock, "source", "primary-returning", from, to,
                    size));
            copiers.put("rpc", (from, to, size) -> Copy.rpcCopy(client, "source", "primary-returning", from, to, size));
            int warmSize = 2 * Copy.DEPTH * Copy.BLOCK;
            Files.write(source.root().resolve("warm.bin"), new byte[warmSize]);
            Timing.warmUp(warmUp, wan.emulator(), () -> {
                for (var c : copiers.entrySet()) {
                    c.getValue().copy("warm.bin", "warm-" + c.getKey(), warmSize);
                }
            });
            Random random = new Random(13);
            for (int kb : sizesKb) {
                byte[] content = new byte[kb * 1024];
                random.nextBytes(content);
                String name = "file-" + kb + ".bin";
                Files.write(source.root().resolve(name), content);
                Map<String, List<Double>> ms = new LinkedHashMap<>();
                Map<String, Long> bytes = new LinkedHashMap<>();
                for (int r = 0; r < runs; r++) {
                    for (var c : copiers.entrySet()) {
                        wan.emulator().resetCounters();
                        ms.computeIfAbsent(c.getKey(), k -> new ArrayList<>())
                                .add(c.getValue().copy(name, c.getKey() + "-" + name, content.length));
                        bytes.put(c.getKey(), viaPrimary(wan.emulator(), topology));
                    }
                }
                for (String variant : VARIANTS) {
                    String copied = variant + "-" + name;
                    if (!Arrays.equals(content, Files.readAllBytes(primary.root().resolve(copied)))
                            || !Arrays.equals(content, Files.readAllBytes(backup.root().resolve(copied)))) {
                        throw new IllegalStateException("the " + variant + " copy of " + name
                                + " differs from the original at the primary or the backup");
                    }
                    int hops = hops(variant, content.length);
                    results.add(Measurement.measured(SCENARIO, variant, kb, Timing.median(ms.get(variant)), hops)
                            .withBytesViaPrimary(bytes.get(variant)));
                }
                for (String variant : VARIANTS) {
                    results.add(Measurement.ideal(SCENARIO, variant, kb, idealMs(topology, backupSite, variant,
                            content.length), hops(variant, content.length)));
                }
            }
        }
        return results;
    }

    /** One variant's copy of a file; returns the milliseconds it took. */
    @FunctionalInterface
    private interface Copier {
        double copy(String from, String to, int size) throws Exception;
    }

    /** Bytes that went in or out of the primary's site (its only node at work) since the counters were reset. */
    private static long viaPrimary(WanEmulator e, WanTopology t) {
        long n = 0;
        for (String site : t.sites()) {
            n += e.bytesCarried(site, PRIMARY) + (site.equals(PRIMARY) ? 0 : e.bytesCarried(PRIMARY, site));
        }
        return n;
    }

    /**
     * Processing steps on the critical path: per round of {@link Copy#DEPTH} blocks, the read, the
     * primary's write and the backup's write, plus, when the result goes back to the primary, the
     * primary's handling of it.
     */
    static int hops(String variant, long bytes) {
        int rounds = (int) ((bytes + Copy.BLOCK - 1) / Copy.BLOCK + Copy.DEPTH - 1) / Copy.DEPTH;
        return (variant.equals("composed") ? 3 : 4) * rounds;
    }

    /**
     * The ideal time of one copy of {@code bytes} by {@code variant}, from the topology alone
     * ({@link CopyModel}); each block's messages:
     *
     * <ul>
     *   <li>composed: request client → source, block source → primary, block primary → backup,
     *       result backup → client;
     *   <li>returned: the same to the backup, then result backup → primary, primary → client;
     *   <li>rpc: request client → source, block source → client, block client → primary, block
     *       primary → backup, result backup → primary, primary → client.
     * </ul>
     */
    public static double idealMs(WanTopology t, String backupSite, String variant, long bytes) {
        CopyModel.Leg request = new CopyModel.Leg(CLIENT, SOURCE, "client>source", false);
        CopyModel.Leg toBackup = new CopyModel.Leg(PRIMARY, backupSite, "primary>backup", true);
        CopyModel.Leg backToPrimary = new CopyModel.Leg(backupSite, PRIMARY, "backup>primary", false);
        CopyModel.Leg primaryToClient = new CopyModel.Leg(PRIMARY, CLIENT, "primary>client", false);
        List<CopyModel.Leg> legs = switch (variant) {
            case "composed" -> List.of(request, new CopyModel.Leg(SOURCE, PRIMARY, "source>primary", true), toBackup,
                    new CopyModel.Leg(backupSite, CLIENT, "backup>client", false));
            case "returned" -> List.of(request, new CopyModel.Leg(SOURCE, PRIMARY, "source>primary", true), toBackup,
                    backToPrimary, primaryToClient);
            case "rpc" -> List.of(request, new CopyModel.Leg(SOURCE, CLIENT, "source>client", true),
                    new CopyModel.Leg(CLIENT, PRIMARY, "client>primary", true), toBackup, backToPrimary, primaryToClient);
            default -> throw new IllegalArgumentException("unknown variant " + variant);
        };
        return CopyModel.idealMs(t, legs, bytes);
    }
}
