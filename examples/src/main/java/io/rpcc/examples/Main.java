package io.rpcc.examples;

import io.rpcc.examples.aggregation.Aggregation;
import io.rpcc.examples.atomic.AtomicFigures;
import io.rpcc.examples.atomic.BankTransfer;
import io.rpcc.examples.atomic.ReplicatedLog;
import io.rpcc.examples.broken.BrokenChains;
import io.rpcc.examples.copy.Copy;
import io.rpcc.examples.copy.CopyUnderLoad;
import io.rpcc.examples.copy.ReplicatedCopy;
import io.rpcc.examples.legacy.LegacyGeo;
import io.rpcc.examples.copy.StreamCopy;
import io.rpcc.examples.quickstart.Quickstart;
import io.rpcc.examples.search.SplitSearch;
import io.rpcc.examples.sequential.SequentialVsContinuation;
import io.rpcc.examples.statesize.AdaptiveStateSize;
import io.rpcc.examples.statesize.StateSize;
import io.rpcc.examples.tracing.TracedOrder;
import io.rpcc.examples.webmail.WebMail;
import java.util.Arrays;

/**
 * Runs one example: {@code java -jar rpcc-examples.jar <example> [args]}; {@code all} (the
 * default) runs the quick scenarios (quickstart, aggregation, split search, a node killed
 * mid-chain) briefly, one after the other; {@code figures} runs the five paper figures at full size,
 * {@code figures --quick} each briefly (options such as {@code --charts DIR} or {@code --json} go to
 * each); {@code help} lists the examples.
 *
 * <p>Killing nodes is what the broken-chain scenario measures, and each chain that breaks makes a
 * node log a WARN line on {@code io.rpcc.failures} (rpcc's failure log); these are expected, so {@code all} and
 * {@code broken-chain} turn that logger off unless {@code --logs} is given (or the system property
 * {@code org.slf4j.simpleLogger.log.io.rpcc.failures} is set); so does {@code legacy}, which shows a
 * refused order on purpose.
 */
public final class Main {
    /** The examples and what each shows, for {@code help}. */
    private static final String[][] EXAMPLES = {
        {"all", "quickstart, aggregation, search and broken-chain, briefly (the default; about 35 s)"},
        {"figures", "the paper's figures 10, 11, 12, 14 and 13 at full size, tables and PNG charts"
                + " (several minutes); figures --quick runs each briefly"},
        {"quickstart", "a chain through three servers, chain and interactive mode"},
        {"aggregation", "Quatrain's aggregation: average arrival time of records, single vs multi-return"},
        {"search", "split and merge: a search over shards in three sites vs sequential hops"},
        {"broken-chain", "a node killed mid-chain: time to detect, time to recover by retry and by failover"},
        {"state-size", "figure 10: chain vs two RPCs against state size (--adaptive: and the adaptive state fall-back)"},
        {"copy", "figure 11: chain copy vs RPC copy"},
        {"copy-stream", "figure 11's copy of 1-10 MB files with and without data streams"},
        {"copy-load", "figure 12: copy under load"},
        {"webmail", "figure 14: web mail, rpcc chain vs rpcc RPCs vs gRPC-java"},
        {"replicated-copy", "figure 13: replicated copy, composition on vs off vs RPC; --placement paper (the default)"
                + " or backup-near-client"},
        {"sequential", "the checkout as a continuation-style and as a sequential chain: latency and state per hop"},
        {"tracing", "a chain with a sub-chain, a split and replies traced into Zipkin (start it first: ./rpcc zipkin);"
                + " --zipkin URL, default http://localhost:9411"},
        {"legacy", "a chain through a real gRPC server and a real HTTP/JSON server, each wrapped by an rpcc node,"
                + " on the emulated WAN; --runs N"},
        {"bank", "atomic chains: bank transfers across three sites on the emulated WAN, all or nothing; --transfers N"},
        {"replicated-log", "atomic chains: Waldo's majority-endorsed replicated log, with replicas going down"},
        {"atomic", "atomic chains beside Waldo's microbenchmarks and plain two-phase commit: loopback latency and"
                + " throughput, a 74.7 ms link, bytes per hop; --serial N --seconds S --in-flight K --wan-runs R"},
    };

    private static final String FAILURE_LOG_LEVEL = "org.slf4j.simpleLogger.log.io.rpcc.failures";

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

    private static void usage(java.io.PrintStream out) {
        out.println("usage: ./rpcc demo [example] [options]   (java -jar examples/target/rpcc-examples.jar ...)");
        for (String[] e : EXAMPLES) {
            out.printf("  %-16s %s%n", e[0], e[1]);
        }
        out.println("options: --json, --charts DIR, --no-charts, --warmup-ms N, and each example's own"
                + " (--runs N, --sizes a,b, ...; see examples/README.md); --logs keeps the expected failure"
                + " logs of broken-chain");
    }

    public static void main(String[] args) throws Exception {
        try {
            run(args);
        } catch (Options.UsageException e) {
            System.err.println("rpcc examples: " + e.getMessage());
            System.exit(2);
        }
    }

    /**
     * Turns off the WARN lines that rpcc logs for each chain that breaks, when a scenario breaks
     * chains on purpose (before SLF4J starts: its simple logger reads a logger's level once).
     */
    private static boolean quietExpectedFailures(boolean keep) {
        if (keep || System.getProperty(FAILURE_LOG_LEVEL) != null) {
            return false;
        }
        System.setProperty(FAILURE_LOG_LEVEL, "off");
        return true;
    }

    /** Says why there are (or would be) WARN lines: before the scenario that kills nodes. */
    private static void announceExpectedFailures(boolean quiet) {
        System.out.println(quiet
                ? "(nodes are killed on purpose here; rpcc's WARN lines for the chains that break are expected,"
                        + " and turned off: add --logs to see them)"
                : "(nodes are killed on purpose here: the WARN lines on io.rpcc.failures below are expected)");
    }

    /** Runs one scenario; a bad argument is an {@link Options.UsageException} (so tests see it, not an exit). */
    static void run(String[] args) throws Exception {
        String example = args.length == 0 ? "all" : args[0];
        String[] rest = args.length == 0 ? args : Arrays.copyOfRange(args, 1, args.length);
        boolean logs = Arrays.asList(rest).contains("--logs");
        rest = Arrays.stream(rest).filter(a -> !a.equals("--logs")).toArray(String[]::new);
        switch (example) {
            case "all" -> {
                boolean quiet = quietExpectedFailures(logs);
                long start = System.nanoTime();
                section("quickstart: a chain through three servers, chain and interactive mode");
                Quickstart.main(new String[0]);
                section("aggregation (Quatrain): average arrival time of 28 records, single vs multi-return");
                Aggregation.main(new String[] {"--rounds", "2"});
                section("split and merge on the emulated WAN: a search over shards in three sites vs sequential hops");
                SplitSearch.main(with(rest, "--runs", "3", "--warmup-ms", "1500"));
                section("a node killed mid-chain on the emulated WAN: time to detect, time to recover by retry");
                announceExpectedFailures(quiet);
                BrokenChains.main(with(rest, "--intervals", "1000", "--runs", "2"));
                System.out.printf("%nall scenarios ran in %.0f s; the paper's figures: ./rpcc demo figures"
                        + " (full size) or ./rpcc demo figures --quick%n", (System.nanoTime() - start) / 1e9);
            }
            case "figures" -> {
                boolean quick = Arrays.asList(rest).contains("--quick");
                String[] o = Arrays.stream(rest).filter(a -> !a.equals("--quick")).toArray(String[]::new);
                long start = System.nanoTime();
                if (quick) {
                    section("figure 10 on the emulated WAN, briefly: chain vs two RPCs against state size");
                    StateSize.main(with(o, "--sizes", "0,100,200,300", "--runs", "3", "--warmup-ms", "1500"));
                    section("figure 10 with the adaptive state fall-back, briefly: chain vs two RPCs vs adaptive");
                    AdaptiveStateSize.main(with(o, "--sizes", "1,100,300,1000", "--runs", "3", "--warmup-ms", "1500"));
                    section("figure 11 on the emulated WAN, briefly: chain copy vs RPC copy");
                    Copy.main(with(o, "--sizes", "25,250", "--runs", "3", "--warmup-ms", "1500"));
                    section("figure 12 on the emulated WAN, briefly: copy under load");
                    CopyUnderLoad.main(with(o, "--clients", "1,4,8", "--files", "2", "--warmup-ms", "1500"));
                    section("figure 14 on the emulated WAN, briefly: web mail, rpcc chain vs rpcc RPCs vs gRPC-java");
                    WebMail.main(with(o, "--sizes", "1,50", "--runs", "3", "--warmup-ms", "1500"));
                    section("figure 13 on the emulated WAN, briefly: replicated copy, composition on vs off vs RPC");
                    ReplicatedCopy.main(with(o, "--sizes", "25,250", "--runs", "3", "--warmup-ms", "1500"));
                } else {
                    section("figure 10: chain vs two RPCs against state size");
                    StateSize.main(o);
                    section("figure 10 with the adaptive state fall-back: chain vs two RPCs vs adaptive");
                    AdaptiveStateSize.main(o);
                    section("figure 11: chain copy vs RPC copy");
                    Copy.main(o);
                    section("figure 12: copy under load");
                    CopyUnderLoad.main(o);
                    section("figure 14: web mail, rpcc chain vs rpcc RPCs vs gRPC-java");
                    WebMail.main(o);
                    section("figure 13: replicated copy, composition on vs off vs RPC");
                    ReplicatedCopy.main(o);
                }
                System.out.printf("%nthe five figures ran in %.0f s%n", (System.nanoTime() - start) / 1e9);
            }
            case "quickstart" -> Quickstart.main(rest);
            case "aggregation" -> Aggregation.main(rest);
            case "copy" -> Copy.main(rest);
            case "copy-stream" -> StreamCopy.main(rest);
            case "copy-load" -> CopyUnderLoad.main(rest);
            case "webmail" -> WebMail.main(rest);
            case "replicated-copy" -> ReplicatedCopy.main(rest);
            case "state-size" -> StateSize.main(rest);
            case "sequential" -> SequentialVsContinuation.main(rest);
            case "search" -> SplitSearch.main(rest);
            case "tracing" -> TracedOrder.main(rest);
            case "bank" -> BankTransfer.main(rest);
            case "replicated-log" -> ReplicatedLog.main(rest);
            case "atomic" -> AtomicFigures.main(rest);
            case "legacy" -> {
                quietExpectedFailures(logs); // it shows a refused order on purpose
                LegacyGeo.main(rest);
            }
            case "broken-chain" -> {
                announceExpectedFailures(quietExpectedFailures(logs));
                BrokenChains.main(rest);
            }
            case "help", "--help", "-h" -> usage(System.out);
            default -> {
                usage(System.err);
                throw new Options.UsageException("unknown example '" + example + "'");
            }
        }
    }
}
