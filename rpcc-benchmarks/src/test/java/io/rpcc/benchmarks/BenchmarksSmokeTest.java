package io.rpcc.benchmarks;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Collection;
import java.util.List;
import java.util.SortedSet;
import java.util.TreeSet;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestFactory;
import org.junit.jupiter.api.io.TempDir;
import org.openjdk.jmh.results.RunResult;
import org.openjdk.jmh.runner.BenchmarkList;
import org.openjdk.jmh.runner.Runner;
import org.openjdk.jmh.runner.RunnerException;
import org.openjdk.jmh.runner.format.OutputFormatFactory;
import org.openjdk.jmh.runner.options.Options;
import org.openjdk.jmh.runner.options.OptionsBuilder;
import org.openjdk.jmh.runner.options.TimeValue;
import org.openjdk.jmh.runner.options.VerboseMode;

/**
 * Runs every JMH benchmark of this module once, so that one that no longer starts (its
 * {@code @Setup} throws, its benchmark method throws) fails the build instead of the next person
 * who runs {@code ./rpcc bench}. The benchmarks come from the list JMH's annotation processor
 * generates ({@code META-INF/BenchmarkList}), so a new one is covered without being named here;
 * each runs in this JVM (no fork), with every combination of its {@code @Param} values, no warm-up
 * and one short measurement. {@link ThroughputBenchmark}, a runner rather than a JMH benchmark, runs
 * its whole matrix once with tiny durations, and {@link UnderAttackBenchmark} every attack once. Nothing
 * about the timings is asserted.
 */
class BenchmarksSmokeTest {
    /** How long the one measured iteration of a time-based benchmark lasts. */
    private static final TimeValue MEASUREMENT = TimeValue.milliseconds(50);

    /** Each benchmark method ({@code class.method}) in the generated list. */
    static SortedSet<String> benchmarks() {
        SortedSet<String> names = new TreeSet<>();
        BenchmarkList.defaultList()
                .getAll(OutputFormatFactory.createFormatInstance(System.out, VerboseMode.SILENT), List.of())
                .forEach(e -> names.add(e.getUsername()));
        return names;
    }

    @TestFactory
    Stream<DynamicTest> everyBenchmarkRunsOnce() {
        // several builds may run on one machine: JMH's lock file would refuse a second run at once
        System.setProperty("jmh.ignoreLock", "true");
        SortedSet<String> all = benchmarks();
        assertFalse(all.isEmpty(), "no benchmarks in META-INF/BenchmarkList: did JMH's annotation processor run?");
        assertTrue(all.contains(ChainBenchmark.class.getName() + ".chain2Hops")
                && all.contains(FunctionRuntimeBenchmark.class.getName() + ".javaCompileWarm"),
                () -> "the generated list misses known benchmarks: " + all);
        return all.stream().map(name -> DynamicTest.dynamicTest(name, () -> runOnce(name)));
    }

    private static void runOnce(String benchmark) {
        Options options = new OptionsBuilder()
                .include("^" + Pattern.quote(benchmark) + "$")
                .forks(0)
                .warmupIterations(0)
                .measurementIterations(1)
                .measurementTime(MEASUREMENT)
                .threads(1)
                .timeout(TimeValue.seconds(60))
                .shouldFailOnError(true) // an exception in a benchmark or its setup is a RunnerException
                .verbosity(VerboseMode.NORMAL)
                .build();
        Collection<RunResult> results;
        try {
            results = new Runner(options).run();
        } catch (RunnerException e) {
            throw new AssertionError(benchmark + " does not run (its @Setup or the benchmark threw; the stack trace is in JMH's output,"
                    + " target/surefire-reports/*-output.txt): " + e.getMessage(), e);
        }
        assertFalse(results.isEmpty(), () -> benchmark + " produced no result");
    }

    /**
     * Every attack of the under-attack runner, once, briefly, each from its own attacker process: the
     * bystander's every operation must end with the right result, every attacker must have sent
     * something (its process started, attacked and reported), and the raw attackers, which send
     * nothing but what the node refuses, must have been cut off at least once.
     */
    @Test
    void underAttackRunnerRunsOnce(@TempDir Path dir) throws Exception {
        Path csv = dir.resolve("attacks.csv");
        UnderAttackBenchmark.Options options = UnderAttackBenchmark.Options.parse("--rounds", "1", "--seconds", "0.3",
                "--warmup", "0.5", "--initial-warmup", "1", "--csv", csv.toString(), "--label", "smoke");
        UnderAttackBenchmark.Report report = UnderAttackBenchmark.run(options, System.out);
        assertEquals(List.of(), report.errors());
        assertEquals(UnderAttackBenchmark.ATTACKS, List.copyOf(report.windows.keySet()));
        for (String attack : Attacker.ATTACKS) {
            AttackerProcess.Report did = report.did.get(attack).getFirst();
            assertTrue(did.sent() > 0, () -> attack + " sent nothing: " + did);
            if (List.of("ping-flood", "junk-frames").contains(attack)) {
                assertTrue(did.cutOff() > 0, () -> attack + " was never cut off: " + did);
            }
        }
        List<String> rows = Files.readAllLines(csv);
        assertEquals("build,round,attack,operation,ops,p50_us,p99_us", rows.get(0));
        assertEquals(UnderAttackBenchmark.ATTACKS.size() * UnderAttackBenchmark.OPERATIONS.size() + 1, rows.size(),
                () -> String.join("\n", rows));
        assertTrue(report.markdown().contains("| hostile-java |"), report::markdown);
    }

    /**
     * Every variant of the throughput runner, on one and on two connections, one and four in flight,
     * for 50 ms each (or until as many operations as are in flight have ended): each must end its operations with the right result, and the CSV that
     * {@code compare-builds.sh} reads must have a row per cell.
     */
    @Test
    void throughputRunnerRunsOnce(@TempDir Path dir) throws Exception {
        Path csv = dir.resolve("run.csv");
        ThroughputBenchmark.Options options = ThroughputBenchmark.Options.parse("--rounds", "1", "--seconds", "0.05",
                "--warmup", "0", "--initial-warmup", "0", "--in-flight", "1,4", "--connections", "1,2", "--csv", csv.toString(),
                "--label", "smoke");
        ThroughputBenchmark.Report report = ThroughputBenchmark.run(options, System.out);
        assertEquals(List.of(), report.errors());
        assertEquals(ThroughputBenchmark.VARIANTS.size() * 3, report.cells.size(), () -> "cells: " + report.cells);
        report.rounds.forEach((cell, rounds) -> {
            assertEquals(1, rounds.size(), cell::toString);
            // the window lasts until as many operations as are in flight have ended in it
            assertTrue(rounds.get(0).ops() >= cell.inFlight(), () -> cell + ": " + rounds.get(0));
        });
        List<String> rows = Files.readAllLines(csv);
        assertTrue(rows.get(0).startsWith("build,round,variant,connections,in_flight,ops,"), rows.get(0));
        assertEquals(report.cells.size() + 1, rows.size(), () -> String.join("\n", rows));
        assertTrue(report.markdown().contains("| chain100 | 2 | 4 |"), report::markdown);
    }

    /**
     * The runner with two transports side by side: each rpcc variant and the echo once per transport
     * (named {@code plain@nio}, {@code plain@epoll}), gRPC once, and the ratio of each transport to the first.
     */
    @Test
    void throughputRunnerComparesTransportsSideBySide() throws Exception {
        org.junit.jupiter.api.Assumptions.assumeTrue(io.netty.channel.epoll.Epoll.isAvailable(), "epoll is not available");
        ThroughputBenchmark.Options options = ThroughputBenchmark.Options.parse("--rounds", "1", "--seconds", "0.05",
                "--warmup", "0", "--initial-warmup", "0", "--in-flight", "1", "--connections", "1",
                "--variants", "netty,plain,chain2,grpc", "--transport", "nio,epoll", "--executor", "direct");
        ThroughputBenchmark.Report report = ThroughputBenchmark.run(options, System.out);
        assertEquals(List.of(), report.errors());
        assertEquals(7, report.cells.size(), () -> "cells: " + report.cells);
        String md = report.markdown();
        assertTrue(md.contains("| plain@epoll | 1 | 1 |") && md.contains("| netty@nio | 1 | 1 |") && md.contains("| grpc | 1 | 1 |"), md);
        assertTrue(md.contains("plain@epoll ops/s ÷ plain@nio ops/s"), md);
    }
}
