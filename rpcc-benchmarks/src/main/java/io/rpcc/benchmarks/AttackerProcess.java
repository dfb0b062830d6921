package io.rpcc.benchmarks;

import java.io.BufferedReader;
import java.io.File;
import java.io.IOException;
import java.io.InputStreamReader;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * An {@link Attacker} running in a JVM of its own, started by {@link UnderAttackBenchmark}: with this
 * JVM's class path, a small heap, and the lowest CPU priority ({@code nice -n 19}, where it exists).
 * Its standard error goes to a file, kept if it fails.
 */
final class AttackerProcess {
    /** What an attacker did: frames or chains sent, connections opened, cut off by the node, chains failed. */
    record Report(long sent, long connections, long cutOff, long failed, String text) {
        static Report parse(String line) {
            String[] parts = line.split(" \\| ", 2);
            String[] n = parts[0].trim().split(" ");
            if (n.length != 5 || !n[0].equals(Attacker.REPORT)) {
                throw new IllegalStateException("not an attacker's report: " + line);
            }
            return new Report(Long.parseLong(n[1]), Long.parseLong(n[2]), Long.parseLong(n[3]), Long.parseLong(n[4]),
                    parts.length > 1 ? parts[1] : "");
        }
    }

    private final String attack;
    private final Process process;
    private final BufferedReader out;
    private final Path errors;

    private AttackerProcess(String attack, Process process, Path errors) {
        this.attack = attack;
        this.process = process;
        this.out = new BufferedReader(new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8));
        this.errors = errors;
    }

    /** Starts {@code attack} on the node at {@code target}, whose dead next hop is {@code dead}; returns once it runs. */
    static AttackerProcess start(String attack, InetSocketAddress target, InetSocketAddress dead) throws IOException {
        List<String> command = new ArrayList<>();
        if (new File("/usr/bin/nice").canExecute()) {
            command.addAll(List.of("/usr/bin/nice", "-n", "19"));
        }
        command.add(ProcessHandle.current().info().command().orElse(Path.of(System.getProperty("java.home"), "bin", "java").toString()));
        command.addAll(List.of("-Xmx256m", "-XX:+UseSerialGC", "-Dorg.slf4j.simpleLogger.defaultLogLevel=warn"));
        if (Runtime.version().feature() >= 24) {
            command.addAll(List.of("--enable-native-access=ALL-UNNAMED", "--sun-misc-unsafe-memory-access=allow"));
        }
        command.addAll(List.of("-cp", System.getProperty("java.class.path"), Attacker.class.getName(), attack,
                hostPort(target), hostPort(dead)));
        Path errors = Files.createTempFile("rpcc-attacker-" + attack + "-", ".log");
        Process p = new ProcessBuilder(command).redirectError(errors.toFile()).start();
        AttackerProcess a = new AttackerProcess(attack, p, errors);
        String first = a.out.readLine();
        if (!Attacker.STARTED.equals(first)) {
            p.destroyForcibly();
            throw new IOException("the attacker '" + attack + "' did not start (it said " + first + "; its errors: "
                    + errors + ")");
        }
        return a;
    }

    private static String hostPort(InetSocketAddress a) {
        return a.getAddress().getHostAddress() + ":" + a.getPort();
    }

    /** Ends the attack (closes the attacker's standard input) and returns what it did. */
    Report stop() throws IOException, InterruptedException {
        process.getOutputStream().close();
        String line;
        String last = null;
        while ((line = out.readLine()) != null) {
            last = line;
        }
        if (!process.waitFor(30, TimeUnit.SECONDS)) {
            process.destroyForcibly();
        }
        if (last == null || !last.startsWith(Attacker.REPORT)) {
            throw new IOException("the attacker '" + attack + "' ended without its report (exit " + process.exitValue()
                    + "; its errors: " + errors + ")");
        }
        Files.deleteIfExists(errors);
        return Report.parse(last);
    }
}
