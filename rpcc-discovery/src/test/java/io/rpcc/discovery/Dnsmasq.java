package io.rpcc.discovery;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.DatagramPacket;
import java.net.DatagramSocket;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.SocketException;
import java.net.SocketTimeoutException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/**
 * A real DNS server: {@code dnsmasq} (Debian's {@code dnsmasq-base}: {@code ./rpcc test} installs it)
 * on 127.0.0.1 and a free port, serving the zone {@code rpcc.test} from the records it is given
 * ({@code host-record=}, {@code srv-host=} lines) with a TTL of 1 s unless a record says otherwise;
 * a name of {@code rpcc.test} it was not given does not exist (NXDOMAIN). {@link #restart} serves new
 * records on the same port, {@link #stop} takes it away. Where the binary is missing the test is
 * skipped with a message, unless {@code CI=true}: then it fails.
 */
final class Dnsmasq implements AutoCloseable {
    private static final List<String> ZONE = List.of("local=/rpcc.test/", "local-ttl=1", "log-queries");

    private final String binary;
    private final Path dir;
    private final int port;
    private List<String> records = List.of();
    private Process process;

    private Dnsmasq(String binary, Path dir, int port) {
        this.binary = binary;
        this.dir = dir;
        this.port = port;
    }

    static Dnsmasq start(List<String> records) throws Exception {
        String binary = ServerBinary.findOrSkip("dnsmasq", Path.of("/usr/sbin/dnsmasq"), "dnsmasq-base");
        Path dir = Files.createTempDirectory("rpcc-dnsmasq");
        dir.toFile().setReadable(true, false); // dnsmasq drops root for nobody, after reading its configuration
        Dnsmasq dns = new Dnsmasq(binary, dir, freePort());
        dns.restart(records);
        return dns;
    }

    /** The server's address, as a resolver's DNS server. */
    InetSocketAddress address() {
        return new InetSocketAddress("127.0.0.1", port);
    }

    /** The records it serves. */
    List<String> records() {
        return records;
    }

    /** Whether it is running. */
    boolean running() {
        return process != null && process.isAlive();
    }

    /** Stops it (if it runs) and starts it again on the same port, serving {@code records}. */
    void restart(List<String> records) throws Exception {
        stop();
        this.records = List.copyOf(records);
        List<String> config = new ArrayList<>(ZONE);
        config.addAll(records);
        Path conf = dir.resolve("dnsmasq.conf");
        Files.write(conf, config);
        Path log = dir.resolve("dnsmasq.log");
        process = new ProcessBuilder(binary, "--no-daemon", "--keep-in-foreground", "--no-resolv", "--no-hosts",
                "--listen-address=127.0.0.1", "--bind-interfaces", "--port=" + port, "--conf-file=" + conf,
                "--pid-file=" + dir.resolve("dnsmasq.pid"), "--log-facility=-")
                .redirectErrorStream(true).redirectOutput(ProcessBuilder.Redirect.appendTo(log.toFile())).start();
        awaitAnswering(Duration.ofSeconds(20));
    }

    /** Stops it: nothing answers on its port until {@link #restart}. */
    void stop() throws InterruptedException {
        if (process != null) {
            process.destroy();
            if (!process.waitFor(10, TimeUnit.SECONDS)) {
                process.destroyForcibly().waitFor();
            }
            process = null;
        }
    }

    /** Waits until it answers a query (any answer: it reads its configuration before it listens). */
    private void awaitAnswering(Duration within) throws Exception {
        byte[] query = query("ready.rpcc.test");
        long end = System.nanoTime() + within.toNanos();
        try (DatagramSocket socket = new DatagramSocket()) {
            socket.setSoTimeout(100);
            while (System.nanoTime() < end) {
                if (!process.isAlive()) {
                    throw new IllegalStateException("dnsmasq exited with " + process.exitValue() + ": " + log());
                }
                socket.send(new DatagramPacket(query, query.length, address()));
                try {
                    socket.receive(new DatagramPacket(new byte[512], 512));
                    return;
                } catch (SocketTimeoutException notYet) {
                    // starting
                }
            }
        }
        throw new IllegalStateException("dnsmasq did not answer within " + within + ": " + log());
    }

    /** A DNS query (RFC 1035 4.1) for the A records of {@code name}. */
    private static byte[] query(String name) {
        ByteBuffer b = ByteBuffer.allocate(512);
        b.putShort((short) 0x1234).putShort((short) 0x0100).putShort((short) 1).putShort((short) 0).putInt(0);
        for (String label : name.split("\\.")) {
            b.put((byte) label.length()).put(label.getBytes(StandardCharsets.US_ASCII));
        }
        b.put((byte) 0).putShort((short) 1).putShort((short) 1);
        byte[] packet = new byte[b.position()];
        b.flip().get(packet);
        return packet;
    }

    /** What it logged: its start, and every query with its answer. */
    String log() {
        try {
            return Files.readString(dir.resolve("dnsmasq.log"));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** A port free for both UDP and TCP (dnsmasq listens on both). */
    private static int freePort() throws IOException {
        for (int attempt = 0; ; attempt++) {
            try (ServerSocket tcp = new ServerSocket(0, 1, InetAddress.getLoopbackAddress());
                 DatagramSocket udp = new DatagramSocket(tcp.getLocalPort(), InetAddress.getLoopbackAddress())) {
                return udp.getLocalPort();
            } catch (SocketException taken) {
                if (attempt == 20) {
                    throw taken;
                }
            }
        }
    }

    @Override
    public void close() throws Exception {
        stop();
        try (Stream<Path> files = Files.walk(dir)) {
            files.sorted(Comparator.reverseOrder()).forEach(f -> f.toFile().delete());
        }
    }
}
