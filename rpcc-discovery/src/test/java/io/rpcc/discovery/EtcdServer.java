package io.rpcc.discovery;

import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Comparator;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/**
 * A real etcd (the {@code etcd} binary, Debian's {@code etcd-server}: {@code ./rpcc test} installs it)
 * on free loopback ports with a fresh data directory, stopped and deleted by {@link #close}. Where the
 * binary is missing the test is skipped with a message, unless {@code CI=true}: then it fails.
 */
final class EtcdServer implements AutoCloseable {
    private final Process process;
    private final Path dataDir;
    private final URI client;

    private EtcdServer(Process process, Path dataDir, URI client) {
        this.process = process;
        this.dataDir = dataDir;
        this.client = client;
    }

    static EtcdServer start() throws Exception {
        String binary = ServerBinary.findOrSkip("etcd", Path.of("/usr/bin/etcd"), "etcd-server");
        int clientPort = freePort();
        int peerPort = freePort();
        Path dir = Files.createTempDirectory("rpcc-etcd");
        URI client = URI.create("http://127.0.0.1:" + clientPort);
        Process p = new ProcessBuilder(binary, "--name", "rpcc-test", "--data-dir", dir.toString(),
                "--listen-client-urls", client.toString(), "--advertise-client-urls", client.toString(),
                "--listen-peer-urls", "http://127.0.0.1:" + peerPort,
                "--initial-advertise-peer-urls", "http://127.0.0.1:" + peerPort,
                "--initial-cluster", "rpcc-test=http://127.0.0.1:" + peerPort)
                .redirectErrorStream(true).redirectOutput(dir.resolve("etcd.log").toFile()).start();
        EtcdServer etcd = new EtcdServer(p, dir, client);
        etcd.awaitHealthy(Duration.ofSeconds(30));
        return etcd;
    }

    URI client() {
        return client;
    }

    private void awaitHealthy(Duration within) throws Exception {
        HttpClient http = HttpClient.newHttpClient();
        long end = System.nanoTime() + within.toNanos();
        while (System.nanoTime() < end) {
            if (!process.isAlive()) {
                throw new IllegalStateException("etcd exited with " + process.exitValue() + ": "
                        + Files.readString(dataDir.resolve("etcd.log")));
            }
            try {
                HttpResponse<String> r = http.send(HttpRequest.newBuilder(client.resolve("/health"))
                        .timeout(Duration.ofSeconds(1)).build(), HttpResponse.BodyHandlers.ofString());
                if (r.statusCode() == 200 && r.body().contains("true")) {
                    return;
                }
            } catch (IOException notYet) {
                // starting
            }
            Thread.sleep(100);
        }
        throw new IllegalStateException("etcd did not become healthy within " + within);
    }

    private static int freePort() throws IOException {
        try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            return s.getLocalPort();
        }
    }

    @Override
    public void close() throws Exception {
        process.destroy();
        if (!process.waitFor(10, TimeUnit.SECONDS)) {
            process.destroyForcibly().waitFor();
        }
        try (Stream<Path> files = Files.walk(dataDir)) {
            files.sorted(Comparator.reverseOrder()).forEach(f -> f.toFile().delete());
        }
    }
}
