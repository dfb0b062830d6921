package com.acme.svc;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * The standalone node as users run it: {@code java -jar rpcc-node.jar} of the node's distribution
 * ({@code rpcc-node/target/dist}: the jar and its {@code lib/}), as its own process, configured by
 * {@code RPCC_*} variables, with standard output and error in files of its working directory.
 */
final class NodeProcess implements AutoCloseable {
    static final Path DIST = Path.of(System.getProperty("rpcc.node.dist", "../rpcc-node/target/dist")).toAbsolutePath();

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

    /** Starts node {@code name} in {@code workDir} with these {@code RPCC_*} variables (and no others of the test's environment). */
    static NodeProcess start(String name, Path workDir, Map<String, String> env) throws IOException {
        Path jar = DIST.resolve("rpcc-node.jar");
        if (!Files.isRegularFile(jar)) {
            throw new IllegalStateException(jar + " is missing: rpcc-node builds its distribution at package"
                    + " (./rpcc mvn -pl examples-service-jar -am verify builds it first)");
        }
        String java = ProcessHandle.current().info().command().orElseThrow();
        Files.createDirectories(workDir);
        Path out = workDir.resolve(name + ".stdout");
        Path err = workDir.resolve(name + ".stderr");
        List<String> command = new ArrayList<>(List.of(java, "-jar", jar.toString()));
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
                        + timeout + " (alive: " + alive + ")\n" + output());
            }
            Thread.sleep(50);
        }
    }

    List<String> stdout() {
        try {
            return Files.readAllLines(stdout);
        } catch (IOException e) {
            throw new AssertionError("cannot read " + stdout, e);
        }
    }

    /** Standard output and error so far, for messages. */
    String output() {
        try {
            return "stdout of node '" + name + "':\n" + String.join("\n", stdout()) + "\nstderr:\n" + Files.readString(stderr);
        } catch (IOException e) {
            return "(cannot read the output of node '" + name + "': " + e + ")";
        }
    }

    /** Sends SIGTERM and waits for the exit; returns the exit code. */
    int terminate(Duration timeout) throws InterruptedException {
        process.destroy();
        if (!process.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
            throw new AssertionError("node '" + name + "' still runs " + timeout + " after SIGTERM\n" + output());
        }
        return process.exitValue();
    }

    @Override
    public void close() throws InterruptedException {
        if (process.isAlive()) {
            process.destroyForcibly();
            process.waitFor(10, TimeUnit.SECONDS);
        }
    }
}
