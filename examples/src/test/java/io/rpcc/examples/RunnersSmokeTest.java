package io.rpcc.examples;

import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Each measuring runner, started as {@code ./rpcc demo <name>} starts it (through {@link Main},
 * so its option parsing, table and chart are exercised, not only its {@code run} method that the
 * other tests check), with the smallest parameters it takes: one size, one run, no warm-up. A
 * runner that no longer starts fails the build; nothing about the timings is asserted.
 */
class RunnersSmokeTest {
    static Stream<Arguments> runners() {
        return Stream.of(
                Arguments.of("state-size", List.of("--sizes", "0", "--runs", "1")),
                Arguments.of("state-size", List.of("--adaptive", "--sizes", "1", "--runs", "1")),
                Arguments.of("copy", List.of("--sizes", "25", "--runs", "1", "--client", "Redmond")),
                Arguments.of("copy-load", List.of("--clients", "1", "--files", "1")),
                Arguments.of("copy-stream", List.of("--sizes-mb", "1", "--runs", "1")),
                Arguments.of("webmail", List.of("--sizes", "1", "--runs", "1")),
                Arguments.of("replicated-copy", List.of("--sizes", "25", "--runs", "1")),
                Arguments.of("replicated-copy", List.of("--placement", "backup-near-client", "--sizes", "25", "--runs", "1")),
                Arguments.of("search", List.of("--shards", "1", "--runs", "1")),
                Arguments.of("broken-chain", List.of("--intervals", "500", "--runs", "1")),
                Arguments.of("sequential", List.of("--runs", "1")));
    }

    @ParameterizedTest(name = "{0} {1}")
    @MethodSource("runners")
    void runsOnceWithTinyParameters(String runner, List<String> options, @TempDir Path charts) throws Exception {
        List<String> args = new ArrayList<>(List.of(runner));
        args.addAll(options);
        if (!runner.equals("broken-chain")) {
            args.addAll(List.of("--warmup-ms", "0"));
        }
        args.addAll(List.of("--charts", charts.toString()));
        String out = run(args.toArray(String[]::new));
        assertTrue(out.contains("chart: "), () -> runner + " printed no chart line:\n" + out);
        try (Stream<Path> files = Files.list(charts)) {
            assertTrue(files.anyMatch(f -> f.toString().endsWith(".png")), () -> runner + " wrote no chart:\n" + out);
        }
    }

    @Test
    void helpListsEveryScenario() throws Exception {
        String out = run(new String[] {"--help"});
        for (String name : List.of("all", "figures", "quickstart", "aggregation", "search", "broken-chain", "state-size",
                "copy", "copy-stream", "copy-load", "webmail", "replicated-copy", "sequential", "tracing", "legacy")) {
            assertTrue(out.contains("\n  " + name + " "), () -> name + " missing from:\n" + out);
        }
    }

    /** Runs {@link Main} with {@code args}, returning what it printed (and printing it too). */
    private static String run(String[] args) throws Exception {
        PrintStream original = System.out;
        ByteArrayOutputStream captured = new ByteArrayOutputStream();
        System.setOut(new PrintStream(captured, true, StandardCharsets.UTF_8));
        try {
            Main.run(args); // not main: a usage error must fail this test, not exit the test JVM
        } finally {
            System.setOut(original);
        }
        String out = captured.toString(StandardCharsets.UTF_8);
        original.print(out);
        return out;
    }
}
