package io.rpcc.examples;

import io.rpcc.examples.aggregation.Aggregation;
import io.rpcc.examples.copy.Copy;
import io.rpcc.examples.copy.CopyUnderLoad;
import io.rpcc.examples.quickstart.Quickstart;
import io.rpcc.examples.statesize.StateSize;
import io.rpcc.examples.webmail.WebMail;
import java.util.Arrays;

/**
 * Runs one example: {@code java -jar rpcc-examples.jar <example> [args]}; {@code all} (the
 * default) runs every scenario briefly, one after the other.
 */
public final class Main {
    private Main() {
    }

    private static void section(String title) {
        System.out.println();
        System.out.println("#### " + title);
    }

    public static void main(String[] args) throws Exception {
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
                StateSize.main(new String[] {"--sizes", "0,100,200,300", "--runs", "3"});
                section("figure 11 on the emulated WAN: chain copy vs RPC copy");
                Copy.main(new String[] {"--sizes", "25,250", "--runs", "3"});
                section("figure 12 on the emulated WAN: copy under load");
                CopyUnderLoad.main(new String[] {"--clients", "1,4,8", "--files", "2"});
                section("figure 14 on the emulated WAN: web mail");
                WebMail.main(new String[] {"--sizes", "1,50", "--runs", "3"});
                System.out.printf("%nall scenarios ran in %.0f s%n", (System.nanoTime() - start) / 1e9);
            }
            case "quickstart" -> Quickstart.main(rest);
            case "aggregation" -> Aggregation.main(rest);
            case "copy" -> Copy.main(rest);
            case "copy-load" -> CopyUnderLoad.main(rest);
            case "webmail" -> WebMail.main(rest);
            case "state-size" -> StateSize.main(rest);
            default -> {
                System.err.println("unknown example '" + example + "'; available: all, quickstart, aggregation, copy, copy-load, webmail, state-size");
                System.exit(2);
            }
        }
    }
}
