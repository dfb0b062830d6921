package io.rpcc.node;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Assumptions;

/**
 * The packaged standalone node as a separate process: {@code java -jar target/dist/rpcc-node.jar},
 * with the test JVM's java, configured through {@code RPCC_*} variables and arguments. Standard
 * output and error go to files of the working directory ({@link Process#destroy()} closes the
 * process's pipes, so the stopped line could not be read from one).
 */
final class NodeProcess implements AutoCloseable {
    private static final String DIST_PROPERTY = "rpcc.node.dist";
    static final Path DIST = Path.of(System.getProperty(DIST_PROPERTY, "target/dist")).toAbsolutePath();

    /**
     * Skips the calling test outside the build's integration-test phase (e.g. selected with
     * {@code -Dtest} in the test phase, before the dist is packaged); in that phase the dist must exist.
     */
    static void requireIntegrationTestPhase() {
        Assumptions.assumeTrue(System.getProperty(DIST_PROPERTY) != null,
                "runs in the integration-test phase, against the packaged dist: ./rpcc mvn -pl rpcc-node -am verify");
        if (!Files.isRegularFile(DIST.resolve("rpcc-node.jar"))) {
            throw new AssertionError(DIST.resolve("rpcc-node.jar") + " is missing: the dist is built at package");
        }
    }

    private final String name;
    private final Process process;
    private final Path stdout;
    private final Path stderr;

    private NodeProcess(String name, Process process, Path stdout, Path stderr) {
        this.name = name;
        this.process = process;
        this.stdout = stdout;
        this.stderr = stderr;
    }

    /** Starts the node in {@code workDir} with these arguments and {@code RPCC_*} variables (and no others of the test's environment). */
    static NodeProcess start(String name, Path workDir, Map<String, String> env, String... args) throws IOException {
        String java = ProcessHandle.current().info().command().orElseThrow();
        Files.createDirectories(workDir);
        Path out = workDir.resolve(name + ".stdout");
        Path err = workDir.resolve(name + ".stderr");
        List<String> command = new ArrayList<>(List.of(java, "-jar", DIST.resolve("rpcc-node.jar").toString()));
        command.addAll(List.of(args));
        ProcessBuilder pb = new ProcessBuilder(command).directory(workDir.toFile())
                .redirectOutput(out.toFile()).redirectError(err.toFile());
        pb.environment().keySet().removeIf(k -> k.startsWith("RPCC_"));
        pb.environment().putAll(env);
        return new NodeProcess(name, pb.start(), out, err);
    }

    /** Waits for a line of standard output starting with {@code prefix}; fails with the node's output if none comes. */
    String awaitLine(String prefix, Duration timeout) throws InterruptedException {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (true) {
            boolean alive = process.isAlive();
            for (String line : stdout()) {
                if (line.startsWith(prefix)) {
                    return line;
                }
            }
            if (!alive || System.nanoTime() > deadline) {
                throw new AssertionError("node '" + name + "' printed no line starting with \"" + prefix + "\" within "
                        + timeout + " (alive: " + alive + ")\nstdout:\n" + String.join("\n", stdout())
                        + "\nstderr:\n" + stderr());
            }
            Thread.sleep(50);
        }
    }

    /** Standard output so far, by line. */
    List<String> stdout() {
        try {
            return Files.readAllLines(stdout);
        } catch (IOException e) {
            throw new AssertionError("cannot read " + stdout, e);
        }
    }

    /** Standard error so far. */
    String stderr() {
        try {
            return Files.readString(stderr);
        } catch (IOException e) {
            return "(cannot read " + stderr + ": " + e + ")";
        }
    }

    /** Sends SIGTERM and waits for the exit; returns the exit code. */
    int terminate(Duration timeout) throws InterruptedException {
        process.destroy();
        return awaitExit(timeout);
    }

    /** Waits for the process to exit; returns the exit code. */
    int awaitExit(Duration timeout) throws InterruptedException {
        if (!process.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
            throw new AssertionError("node '" + name + "' still runs after " + timeout + "\nstderr:\n" + stderr());
        }
        return process.exitValue();
    }

    /** Kills the process if a test left it running. */
    @Override
    public void close() throws InterruptedException {
        if (process.isAlive()) {
            process.destroyForcibly();
            process.waitFor(10, TimeUnit.SECONDS);
        }
    }
}
