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
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Random;

/**
 * Figure 11's copy of large files (1–10 MB) with and without data streams, side by side in one
 * run on the emulated figure 7 topology: two storage servers in Mountain View, the client in
 * Redmond (or {@code --client}).
 *
 * <ul>
 *   <li><b>copy, blocks</b>: figure 11's chain copy ({@link Copy#chainCopy}: 32 KB blocks, 8 in flight);
 *   <li><b>copy, whole</b>: one chain, the source's read returns the file as one value and the
 *       destination's write starts when all of it has arrived;
 *   <li><b>copy, stream</b>: one chain, the source's read streams the file ({@code StreamedResult})
 *       and the destination's streaming write starts at once, writing the bytes as they arrive;
 *   <li><b>upload, whole</b> and <b>upload, stream</b>: the client's file to storage-1, which writes
 *       it and passes it on to storage-2 (a replica): as one value at each hop, or streamed from the
 *       client through storage-1 to storage-2, each hop writing while the bytes still arrive.
 * </ul>
 *
 * Every file is checked byte for byte after each copy. Prints a table, or with {@code --json} one
 * {@link Measurement} per line ({@code param}: the file size in KB); writes the chart
 * {@code figure-11-copy-stream.png}.
 *
 * <pre>
 * java -jar examples/target/rpcc-examples.jar copy-stream [--json] [--sizes-mb 1,2,5,10] [--client Redmond] [--runs 3]
 * </pre>
 */
public final class StreamCopy {
    static final String SCENARIO = "copy-stream";
    static final List<String> VARIANTS = List.of("copy, blocks", "copy, whole", "copy, stream", "upload, whole",
            "upload, stream");

    private StreamCopy() {
    }

    public static void main(String[] args) throws Exception {
        Options o = Options.parse(args, "--sizes-mb", "--client", "--runs");
        int runs = o.integer("--runs", 3);
        String site = o.string("--client", WanTopology.REDMOND);
        List<Integer> sizes = o.integers("--sizes-mb", List.of(1, 2, 5, 10));
        Results results = run(site, sizes, runs, o.warmUp());
        Path chart = Charts.line(o.charts(), "figure-11-copy-stream", "Copy of large files with and without data streams",
                "file size (KB)", "time (ms)", results.lines(), Measurement::label, Measurement::param,
                Measurement::medianMs);
        results.print(o, chart, () -> {
            System.out.println("Copy of large files with and without data streams (figure 11's setting): servers in "
                    + "Mountain View, client in " + site + "; " + runs + " runs, median ms");
            System.out.printf(Locale.ROOT, "  %5s %13s %12s %13s %8s %14s %15s %8s%n", "MB", "copy, blocks", "copy, whole",
                    "copy, stream", "saved", "upload, whole", "upload, stream", "saved");
            for (int mb : sizes) {
                Map<String, Double> ms = new LinkedHashMap<>();
                for (String v : VARIANTS) {
                    ms.put(v, results.measured(v, mb * 1024, site).medianMs());
                }
                System.out.printf(Locale.ROOT, "  %5d %13.0f %12.0f %13.0f %7.0f%% %14.0f %15.0f %7.0f%%%n", mb,
                        ms.get("copy, blocks"), ms.get("copy, whole"), ms.get("copy, stream"),
                        100 * (1 - ms.get("copy, stream") / ms.get("copy, whole")), ms.get("upload, whole"),
                        ms.get("upload, stream"), 100 * (1 - ms.get("upload, stream") / ms.get("upload, whole")));
            }
            System.out.println("(saved: how much less time the stream takes than the same chain carrying the file whole)");
        });
    }

    /** Runs every variant for each size, alternately, {@code runs} times. */
    public static Results run(String clientSite, List<Integer> sizesMb, int runs, Duration warmUp) throws Exception {
        WanTopology topology = Copy.topology();
        Path dir = Files.createTempDirectory("rpcc-copy-stream");
        Results results = new Results();
        try (WanCluster wan = WanCluster.of(topology, TypeRegistry.of(Block.class))) {
            StorageServer s1 = new StorageServer(dir.resolve("storage-1"));
            StorageServer s2 = new StorageServer(dir.resolve("storage-2"));
            for (var s : List.of(Map.entry("storage-1", s1), Map.entry("storage-2", s2))) {
                StorageServer st = s.getValue();
                wan.server(s.getKey(), WanTopology.MOUNTAIN_VIEW, b -> b.maxFrameSize(32 << 20)
                        .service("read", st::read).service("write", st::write)
                        .service("readWhole", st::readWhole).service("readStream", st::readStream)
                        .service("writeAndPass", st::writeAndPass)
                        .streamingService("writeStream", st::writeStream)
                        .streamingService("writeStreamAndForward", st::writeStreamAndForward));
            }
            ChainingFunctionSource copyBlock = ChainingFunctionSource.javaResource(Copy.class, "/chains/CopyBlock.java");
            ChainingFunctionSource copyFile = ChainingFunctionSource.javaResource(Copy.class, "/chains/CopyFile.java");
            RpccClient client = wan.client("client-" + clientSite.replace(' ', '-').toLowerCase(Locale.ROOT), clientSite,
                    b -> b.maxFrameSize(32 << 20).timeout(Duration.ofMinutes(2)));
            Path local = Files.createDirectories(dir.resolve("client"));
            Random random = new Random(1);
            boolean warm = false;
            for (int mb : sizesMb) {
                byte[] content = new byte[mb << 20];
                random.nextBytes(content);
                String name = "file-" + mb + "mb.bin";
                Files.write(s1.root().resolve(name), content);
                Files.write(local.resolve(name), content);
                Map<String, Variant> variants = new LinkedHashMap<>();
                variants.put("copy, blocks", to -> Copy.chainCopy(client, copyBlock, name, to, content.length));
                variants.put("copy, whole", to -> timed(() -> client.runChain(ChainCall.to("storage-1", "readWhole")
                        .params(new Block(name, 0, 0, null)).chainingFunction(copyFile)
                        .state(ChainState.of("destination", "storage-2", "to", to)))));
                variants.put("copy, stream", to -> timed(() -> client.runChain(ChainCall.to("storage-1", "readStream")
                        .params(new Block(name, 0, 0, null)).chainingFunction(copyFile)
                        .state(ChainState.of("destination", "storage-2", "to", to, "write", "writeStream")))));
                variants.put("upload, whole", to -> timed(() -> client.runChain(ChainCall.to("storage-1", "writeAndPass")
                        .params(new Block(to, 0, content.length, Files.readAllBytes(local.resolve(name))))
                        .chainingFunction(copyFile).state(ChainState.of("destination", "storage-2", "to", to)))));
                variants.put("upload, stream", to -> timed(() -> client.runChain(ChainCall.to("storage-1",
                        "writeStreamAndForward").params(new Block(to, 0, 0, null))
                        .stream(Files.newInputStream(local.resolve(name))).chainingFunction(copyFile)
                        .state(ChainState.of("destination", "storage-2", "to", to, "write", "writeStream")))));
                if (!warm) {
                    Timing.warmUp(warmUp, wan.emulator(), () -> {
                        for (Variant v : variants.values()) {
                            v.copy("warm-" + name);
                        }
                    });
                    warm = true;
                }
                Map<String, List<Double>> ms = new LinkedHashMap<>();
                for (int r = 0; r < runs; r++) {
                    int i = 0;
                    for (var v : variants.entrySet()) {
                        String to = "v" + i++ + "-" + r + "-" + name;
                        ms.computeIfAbsent(v.getKey(), k -> new ArrayList<>()).add(v.getValue().copy(to));
                        check(content, s2.root().resolve(to), v.getKey());
                        if (v.getKey().startsWith("upload")) {
                            check(content, s1.root().resolve(to), v.getKey());
                        }
                    }
                }
                for (var e : ms.entrySet()) {
                    results.add(Measurement.measured(SCENARIO, e.getKey(), mb * 1024, Timing.median(e.getValue()), 2)
                            .at(clientSite));
                }
            }
        }
        return results;
    }

    private static void check(byte[] content, Path copy, String variant) throws java.io.IOException {
        if (!Arrays.equals(content, Files.readAllBytes(copy))) {
            throw new IllegalStateException(variant + ": " + copy + " differs from the original");
        }
        Files.delete(copy);
    }

    private interface Variant {
        double copy(String to) throws Exception;
    }

    private interface Task {
        void run() throws Exception;
    }

    private static double timed(Task t) throws Exception {
        long start = System.nanoTime();
        t.run();
        return (System.nanoTime() - start) / 1e6;
    }
}
