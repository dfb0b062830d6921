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
 * The paper's figure 13 (5.3.2, Fig. 5): a client copies a file from a storage server to a
 * replicated one whose primary's {@code write} replicates each block to its backup in a sub-chain
 * ({@link StorageServer#writeAndReplicate}). Three variants, with the same block size and
 * pipelining depth as figure 11:
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
 * <p>Two placements ({@link Placement}): {@code paper}, the default, is the paper's: client in
 * Cambridge, source and primary in Mountain View (two subnets, 2 ms ping and 10 MB/s apart, as
 * figure 11's local client), backup in Redmond. {@code backup-near-client} puts the primary in
 * Redmond and the backup in Cambridge, on another machine than the client's: composition then
 * saves two transatlantic crossings per round of blocks instead of a Redmond–Mountain View one.
 * {@code --backup SITE} moves the backup of either.
 * Prints a table, or with {@code --json} one {@link Measurement} per line ({@code param} is the file
 * size in KB, with {@code bytes_via_primary}: bytes in and out of the primary's site per copy);
 * writes the chart {@code figure-13-replicated-copy.png} (the paper's placement) or
 * {@code figure-13-replicated-copy-<placement>.png}.
 *
 * <pre>
 * java -jar examples/target/rpcc-examples.jar replicated-copy [--json] [--placement paper|backup-near-client] [--sizes 25,100,250,500] [--runs 5] [--backup SITE] [--charts DIR]
 * </pre>
 */
public final class ReplicatedCopy {
    static final String SCENARIO = "replicated-copy";
    /** The variants, in the order of the table. */
    static final List<String> VARIANTS = List.of("composed", "returned", "rpc");

    /**
     * Where the nodes are: sites of {@link #topology()}. The primary needs a site of its own (no
     * other node at work there), since the bytes through it are counted per site.
     *
     * @param name what {@code --placement} calls it
     * @param client the client's site
     * @param source the source server's site
     * @param primary the destination primary's site
     * @param backup the destination backup's site
     */
    public record Placement(String name, String client, String source, String primary, String backup) {
        /**
         * The paper's (5.3.2): client in Cambridge, source and primary in Mountain View (the source on
         * a second subnet, {@link Copy#MOUNTAIN_VIEW_LAN}), backup in Redmond.
         */
        public static final Placement PAPER = new Placement("paper", WanTopology.CAMBRIDGE, Copy.MOUNTAIN_VIEW_LAN,
                WanTopology.MOUNTAIN_VIEW, WanTopology.REDMOND);
        /**
         * Client in Cambridge, source in Mountain View, primary in Redmond, backup in Cambridge (on
         * another machine than the client): the backup's result is a LAN away from the client, two
         * transatlantic crossings away through the primary.
         */
        public static final Placement BACKUP_NEAR_CLIENT = new Placement("backup-near-client", WanTopology.CAMBRIDGE,
                WanTopology.MOUNTAIN_VIEW, WanTopology.REDMOND, WanTopology.CAMBRIDGE);

        /** Checks that the primary has a site of its own. */
        public Placement {
            if (primary.equals(client) || primary.equals(source) || primary.equals(backup)) {
                throw new Options.UsageException("placement " + name + ": the primary (" + primary + ") needs a site of its "
                        + "own, since the bytes through it are counted per site; put the "
                        + (primary.equals(backup) ? "backup" : primary.equals(source) ? "source" : "client") + " elsewhere");
            }
        }

        /** The placement {@code --placement} names. */
        public static Placement named(String name) {
            return switch (name) {
                case "paper" -> PAPER;
                case "backup-near-client" -> BACKUP_NEAR_CLIENT;
                default -> throw new Options.UsageException("--placement " + name
                        + ": unknown placement (known: paper, backup-near-client)");
            };
        }

        /** This placement with the backup in {@code site}. */
        public Placement withBackup(String site) {
            topology().intraSite(site); // fail fast on an unknown site
            return site.equals(backup) ? this : new Placement(name + ", backup in " + site, client, source, primary, site);
        }

        /** The chart's file name (without {@code .png}). */
        String chartName() {
            String base = "figure-13-replicated-copy";
            return this.equals(PAPER) ? base
                    : base + "-" + name.toLowerCase(Locale.ROOT).replaceAll("[^a-z0-9]+", "-").replaceAll("-$", "");
        }
    }

    /**
     * Told of the bytes that each link direction ({@code "A → B"}) carried during the last copy of
     * one file size by one variant, to check the messages' path.
     */
    @FunctionalInterface
    public interface LinkBytes {
        /** {@code variant}'s last copy of a file of {@code kb} KB: bytes per link direction. */
        void carried(String variant, int kb, Map<String, Long> bytesPerLink);
    }

    private ReplicatedCopy() {
    }

    /**
     * Figure 7's sites, plus {@link Copy#MOUNTAIN_VIEW_LAN}, a second subnet of Mountain View
     * ({@link Copy#topology()}).
     */
    public static WanTopology topology() {
        return Copy.topology();
    }

    public static void main(String[] args) throws Exception {
        Options o = Options.parse(args, "--sizes", "--runs", "--placement", "--backup");
        int runs = o.integer("--runs", 5);
        Placement named = Placement.named(o.string("--placement", Placement.PAPER.name()));
        Placement p = o.string("--backup", null) == null ? named : named.withBackup(o.string("--backup", null));
        Results results = run(p, o.integers("--sizes", List.of(25, 100, 250, 500)), runs, o.warmUp(), (v, kb, bytes) -> {
        });
        Path chart = Charts.line(o.charts(), p.chartName(),
                "Replicated copy: composition on vs off vs RPC (figure 13, "
                        + (p.equals(Placement.PAPER) ? "the paper's placement" : "placement " + p.name()) + ")", "file size (KB)",
                "copy time (ms)", results.lines(), Measurement::label, Measurement::param, Measurement::medianMs);
        results.print(o, chart, () -> {
            System.out.println("Replicated copy (figure 13), placement " + p.name() + ": client in " + p.client()
                    + ", source in " + p.source() + ", primary in " + p.primary() + ", backup in " + p.backup() + "; " + runs
                    + " runs, median; block " + Copy.BLOCK / 1024 + " KB, pipelining depth " + Copy.DEPTH);
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

    /**
     * Runs the replicated copy of every file size with the nodes placed by {@code placement}, the
     * three variants alternately; checks that the primary's and the backup's copies equal the
     * original.
     *
     * @param linkBytes told, for each file size and variant, the bytes per link direction of its last copy
     */
    public static Results run(Placement placement, List<Integer> sizesKb, int runs, Duration warmUp, LinkBytes linkBytes)
            throws Exception {
        WanTopology topology = topology();
        for (String site : List.of(placement.client(), placement.source(), placement.primary(), placement.backup())) {
            topology.intraSite(site); // fail fast on an unknown site
        }
        Path dir = Files.createTempDirectory("rpcc-replicated-copy");
        Results results = new Results();
        try (WanCluster wan = WanCluster.of(topology, TypeRegistry.of(Block.class))) {
            StorageServer source = new StorageServer(dir.resolve("source"));
            StorageServer primary = new StorageServer(dir.resolve("primary"));
            StorageServer backup = new StorageServer(dir.resolve("backup"));
            wan.server("source", placement.source(), b -> b.service("read", source::read));
            wan.server("backup", placement.backup(), b -> b.service("write", backup::write));
            // one store, two nodes: one composes the replication sub-chain with the caller's chain (the
            // default), the other returns the backup's result to itself first
            wan.server("primary", placement.primary(), b -> b.service("write", block -> primary.writeAndReplicate(block,
                    "backup")));
            wan.server("primary-returning", placement.primary(), b -> b.subChainComposition(false)
                    .service("write", block -> primary.writeAndReplicate(block, "backup")));
            RpccClient client = wan.client("client", placement.client());
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
                Map<String, Map<String, Long>> perLink = new LinkedHashMap<>();
                for (int r = 0; r < runs; r++) {
                    for (var c : copiers.entrySet()) {
                        wan.emulator().resetCounters();
                        ms.computeIfAbsent(c.getKey(), k -> new ArrayList<>())
                                .add(c.getValue().copy(name, c.getKey() + "-" + name, content.length));
                        bytes.put(c.getKey(), viaPrimary(wan.emulator(), topology, placement.primary()));
                        perLink.put(c.getKey(), wan.emulator().bytesPerLink());
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
                    linkBytes.carried(variant, kb, perLink.get(variant));
                }
                for (String variant : VARIANTS) {
                    results.add(Measurement.ideal(SCENARIO, variant, kb, idealMs(topology, placement, variant,
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
    private static long viaPrimary(WanEmulator e, WanTopology t, String primary) {
        long n = 0;
        for (String site : t.sites()) {
            n += e.bytesCarried(site, primary) + (site.equals(primary) ? 0 : e.bytesCarried(primary, site));
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
    public static double idealMs(WanTopology t, Placement p, String variant, long bytes) {
        CopyModel.Leg request = new CopyModel.Leg(p.client(), p.source(), "client>source", false);
        CopyModel.Leg toBackup = new CopyModel.Leg(p.primary(), p.backup(), "primary>backup", true);
        CopyModel.Leg backToPrimary = new CopyModel.Leg(p.backup(), p.primary(), "backup>primary", false);
        CopyModel.Leg primaryToClient = new CopyModel.Leg(p.primary(), p.client(), "primary>client", false);
        List<CopyModel.Leg> legs = switch (variant) {
            case "composed" -> List.of(request, new CopyModel.Leg(p.source(), p.primary(), "source>primary", true), toBackup,
                    new CopyModel.Leg(p.backup(), p.client(), "backup>client", false));
            case "returned" -> List.of(request, new CopyModel.Leg(p.source(), p.primary(), "source>primary", true), toBackup,
                    backToPrimary, primaryToClient);
            case "rpc" -> List.of(request, new CopyModel.Leg(p.source(), p.client(), "source>client", true),
                    new CopyModel.Leg(p.client(), p.primary(), "client>primary", true), toBackup, backToPrimary, primaryToClient);
            default -> throw new IllegalArgumentException("unknown variant " + variant);
        };
        return CopyModel.idealMs(t, legs, bytes);
    }
}
