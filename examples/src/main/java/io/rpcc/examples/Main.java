package io.rpcc.examples;

import io.rpcc.examples.aggregation.Aggregation;
import io.rpcc.examples.broken.BrokenChains;
import io.rpcc.examples.copy.Copy;
import io.rpcc.examples.copy.CopyUnderLoad;
import io.rpcc.examples.copy.ReplicatedCopy;
import io.rpcc.examples.quickstart.Quickstart;
import io.rpcc.examples.search.SplitSearch;
import io.rpcc.examples.statesize.StateSize;
import io.rpcc.examples.webmail.WebMail;
import java.util.Arrays;

/**
 * Runs one example: {@code java -jar rpcc-examples.jar <example> [args]}; {@code all} (the
 * default) runs every scenario briefly, one after the other; {@code figures} runs the five paper
 * figures at full size (options such as {@code --charts DIR} or {@code --json} go to each).
 */
public final class Main {
    private Main() {
    }

    private static void section(String title) {
        System.out.println();
        System.out.println("#### " + title);
    }

    /** {@code defaults} followed by the user's options (only the chart options apply to every runner). */
    private static String[] with(String[] user, String... defaults) {
        String[] all = Arrays.copyOf(defaults, defaults.length + user.length);
        System.arraycopy(user, 0, all, defaults.length, user.length);
        return all;
    }

    public static void main(String[] args) throws Exception {
        try {
            run(args);
        } catch (Options.UsageException e) {
            System.err.println("rpcc examples: " + e.getMessage());
            System.exit(2);
        }
    }

    private static void run(String[] args) throws Exception {
        String example = args.length == 0 ? "all" : args[0];
        String[] rest = args.length == 0 ? args : Arrays.copyOfRange(args, 1, args.length);
        switch (example) {
            case "all" -> {
                long start = System.nanoTime();
                section("quickstart: a chain through three servers, chain and interactive mode");
                Quickstart.main(new String[0]);
                section("aggregation (Quatrain): average arrival time of 28 records, single vs multi-return");
                Aggregation.main(new String[] {"--rounds", "2"});
                section("figure 10 on the emulated WAN: chain vs two RPCs against state size");
                StateSize.main(with(rest, "--sizes", "0,100,200,300", "--runs", "3", "--warmup-ms", "1500"));
                section("figure 11 on the emulated WAN: chain copy vs RPC copy");
                Copy.main(with(rest, "--sizes", "25,250", "--runs", "3", "--warmup-ms", "1500"));
                section("figure 12 on the emulated WAN: copy under load");
                CopyUnderLoad.main(with(rest, "--clients", "1,4,8", "--files", "2", "--warmup-ms", "1500"));
                section("figure 14 on the emulated WAN: web mail, rpcc chain vs rpcc RPCs vs gRPC-java");
                WebMail.main(with(rest, "--sizes", "1,50", "--runs", "3", "--warmup-ms", "1500"));
                section("figure 13 on the emulated WAN: replicated copy, composition on vs off vs RPC");
                ReplicatedCopy.main(with(rest, "--sizes", "25,250", "--runs", "3", "--warmup-ms", "1500"));
                section("split and merge on the emulated WAN: a search over shards in three sites vs sequential hops");
                SplitSearch.main(with(rest, "--runs", "3", "--warmup-ms", "1500"));
                section("a node killed mid-chain on the emulated WAN: time to detect, time to recover by retry");
                BrokenChains.main(with(rest, "--intervals", "500,1000", "--runs", "2"));
                System.out.printf("%nall scenarios ran in %.0f s%n", (System.nanoTime() - start) / 1e9);
            }
            case "figures" -> {
                long start = System.nanoTime();
                section("figure 10: chain vs two RPCs against state size");
                StateSize.main(rest);
                section("figure 11: chain copy vs RPC copy");
                Copy.main(rest);
                section("figure 12: copy under load");
                CopyUnderLoad.main(rest);
                section("figure 14: web mail, rpcc chain vs rpcc RPCs vs gRPC-java");
                WebMail.main(rest);
                section("figure 13: replicated copy, composition on vs off vs RPC");
                ReplicatedCopy.main(rest);
                System.out.printf("%nthe five figures ran in %.0f s%n", (System.nanoTime() - start) / 1e9);
            }
            case "quickstart" -> Quickstart.main(rest);
            case "aggregation" -> Aggregation.main(rest);
            case "copy" -> Copy.main(rest);
            case "copy-load" -> CopyUnderLoad.main(rest);
            case "webmail" -> WebMail.main(rest);
            case "replicated-copy" -> ReplicatedCopy.main(rest);
            case "state-size" -> StateSize.main(rest);
            case "search" -> SplitSearch.main(rest);
            case "broken-chain" -> BrokenChains.main(rest);
            default -> {
                System.err.println("unknown example '" + example + "'; available: all, figures, quickstart, aggregation, copy,"
                        + " copy-load, webmail, state-size, replicated-copy, search, broken-chain");
                System.exit(2);
            }
        }
    }
}
