package io.rpcc.benchmarks;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Collection;
import java.util.List;
import java.util.SortedSet;
import java.util.TreeSet;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.TestFactory;
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
 * and one short measurement. Nothing about the timings is asserted.
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
}
