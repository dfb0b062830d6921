package io.rpcc.examples.tracing;

import java.io.IOException;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import zipkin2.Span;
import zipkin2.codec.SpanBytesDecoder;

/**
 * Zipkin's server in a child process, spans in memory, on a free port of loopback: started from the
 * jar the examples' pom copies into {@code target/zipkin} (system property {@code rpcc.zipkin.jar}),
 * with the test's own JDK; killed by {@link #close()} (and when the test JVM exits). It never lets
 * a test pass without it: a missing jar, a server that exits or that does not answer in time is an
 * {@link AssertionError} that says why and what to do.
 */
final class ZipkinProcess implements AutoCloseable {
    /** How long the server may take to answer {@code /health} (it takes 10-60 s on a busy 2-core machine). */
    private static final Duration START_TIMEOUT =
            Duration.ofSeconds(Long.getLong("rpcc.zipkin.startSeconds", 180));

    private final Process process;
    private final Path log;
    private final URI base;
    private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();
    private final Thread killer;

    private ZipkinProcess(Process process, Path log, URI base) {
        this.process = process;
        this.log = log;
        this.base = base;
        this.killer = new Thread(process::destroyForcibly, "zipkin-killer");
        Runtime.getRuntime().addShutdownHook(killer);
    }

    /** Starts the server (its output in {@code logDir}) and returns once it answers {@code /health}. */
    static ZipkinProcess start(Path logDir) throws IOException, InterruptedException {
        String jarProperty = System.getProperty("rpcc.zipkin.jar");
        if (jarProperty == null) {
            throw new AssertionError("no system property rpcc.zipkin.jar: run this test through Maven (./rpcc mvn test"
                    + " -pl examples ...), whose pom copies Zipkin's server jar into examples/target/zipkin and sets it");
        }
        Path jar = Path.of(jarProperty);
        if (!Files.isRegularFile(jar)) {
            throw new AssertionError("Zipkin's server jar is not at " + jar + ": resolve it with"
                    + " ./rpcc mvn -pl examples dependency:copy@zipkin-server (io.zipkin:zipkin-server:jar:exec)");
        }
        int port = freePort();
        Files.createDirectories(logDir);
        Path log = logDir.resolve("zipkin-" + port + ".log");
        String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        // a quick start rather than peak speed: C1 only, one GC thread, a small heap
        ProcessBuilder builder = new ProcessBuilder(java, "-XX:TieredStopAtLevel=1", "-XX:+UseSerialGC", "-Xmx256m",
                "-jar", jar.toString(), "--server.port=" + port)
                .redirectErrorStream(true).redirectOutput(log.toFile());
        builder.environment().put("STORAGE_TYPE", "mem");
        ZipkinProcess zipkin = new ZipkinProcess(builder.start(), log, URI.create("http://localhost:" + port));
        try {
            zipkin.awaitHealthy();
            return zipkin;
        } catch (AssertionError | InterruptedException | RuntimeException e) {
            zipkin.close();
            throw e;
        }
    }

    private static int freePort() throws IOException {
        try (ServerSocket socket = new ServerSocket(0)) {
            return socket.getLocalPort();
        }
    }

    private void awaitHealthy() throws InterruptedException {
        long deadline = System.nanoTime() + START_TIMEOUT.toNanos();
        String last = "no answer yet";
        while (System.nanoTime() < deadline) {
            if (!process.isAlive()) {
                throw new AssertionError("Zipkin's server exited with code " + process.exitValue()
                        + " before answering " + base + "/health; its log " + log + " ends with:\n" + logTail());
            }
            try {
                HttpResponse<String> health = request("/health");
                if (health.statusCode() == 200 && health.body().contains("UP")) {
                    return;
                }
                last = health.statusCode() + " " + health.body();
            } catch (IOException e) {
                last = e.toString();
            }
            Thread.sleep(250);
        }
        throw new AssertionError("Zipkin's server did not answer " + base + "/health within " + START_TIMEOUT.toSeconds()
                + " s (last: " + last + "); a slow machine may need -Drpcc.zipkin.startSeconds=N; its log " + log
                + " ends with:\n" + logTail());
    }

    /** Where reporters send spans: {@code http://localhost:port/api/v2/spans}. */
    String spansEndpoint() {
        return base + "/api/v2/spans";
    }

    /** The server's base address, {@code http://localhost:port}. */
    URI base() {
        return base;
    }

    /**
     * The spans of trace {@code traceId} as Zipkin's API returns them ({@code /api/v2/trace/{traceId}}),
     * polled until there are at least {@code atLeast} (spans arrive in batches, after the reporter's
     * flush); fails naming what it last saw if they do not arrive within {@code timeout}.
     */
    List<Span> awaitTrace(String traceId, int atLeast, Duration timeout) throws InterruptedException {
        long deadline = System.nanoTime() + timeout.toNanos();
        String last = "nothing";
        while (true) {
            try {
                HttpResponse<String> trace = request("/api/v2/trace/" + traceId);
                if (trace.statusCode() == 200) {
                    List<Span> spans = SpanBytesDecoder.JSON_V2.decodeList(trace.body().getBytes(StandardCharsets.UTF_8));
                    if (spans.size() >= atLeast) {
                        return spans;
                    }
                    last = spans.size() + " spans";
                } else {
                    last = "HTTP " + trace.statusCode() + " " + trace.body();
                }
            } catch (IOException e) {
                last = e.toString();
            }
            if (System.nanoTime() > deadline) {
                throw new AssertionError("Zipkin at " + base + " did not have the " + atLeast + " spans of trace " + traceId
                        + " within " + timeout.toSeconds() + " s; last: " + last);
            }
            Thread.sleep(200);
        }
    }

    /** The body of a successful GET of {@code path} of Zipkin's API; an {@link AssertionError} otherwise. */
    String get(String path) throws InterruptedException {
        try {
            HttpResponse<String> response = request(path);
            if (response.statusCode() != 200) {
                throw new AssertionError("GET " + base.resolve(path) + ": HTTP " + response.statusCode() + " " + response.body());
            }
            return response.body();
        } catch (IOException e) {
            throw new AssertionError("GET " + base.resolve(path) + " failed: " + e, e);
        }
    }

    private HttpResponse<String> request(String path) throws IOException, InterruptedException {
        return http.send(HttpRequest.newBuilder(base.resolve(path)).timeout(Duration.ofSeconds(5)).build(),
                HttpResponse.BodyHandlers.ofString());
    }

    private String logTail() {
        try {
            List<String> lines = Files.readAllLines(log);
            return String.join("\n", lines.subList(Math.max(0, lines.size() - 30), lines.size()));
        } catch (IOException e) {
            return "(unreadable: " + e + ")";
        }
    }

    /** Stops the server (forcibly after 10 s). */
    @Override
    public void close() throws InterruptedException {
        http.close();
        process.destroy();
        if (!process.waitFor(10, TimeUnit.SECONDS)) {
            process.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
        }
        try {
            Runtime.getRuntime().removeShutdownHook(killer);
        } catch (IllegalStateException e) {
            // the JVM is exiting: the hook runs anyway
        }
    }
}
