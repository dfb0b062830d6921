package io.rpcc.testkit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The emulator imposes the configured latency and bandwidth, within a few percent: the fidelity of
 * the testbed that every wide-area figure depends on.
 */
class WanEmulatorTest {
    static final Duration LATENCY = Duration.ofMillis(40);
    static final long BANDWIDTH = 4_000_000; // bytes per second

    WanEmulator wan;
    ServerSocket server;
    final List<Socket> sockets = Collections.synchronizedList(new ArrayList<>());

    @BeforeEach
    void start() throws Exception {
        wan = new WanEmulator(WanTopology.builder().link("a", "b", LATENCY, BANDWIDTH).build());
        server = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
        Thread.ofPlatform().daemon().start(() -> {
            while (!server.isClosed()) {
                try {
                    Socket s = server.accept();
                    sockets.add(s);
                    Thread.ofPlatform().daemon().start(() -> serve(s));
                } catch (Exception e) {
                    return;
                }
            }
        });
    }

    /** Echoes single bytes (pings); for bulk data, answers one byte once the announced count has arrived. */
    private static void serve(Socket s) {
        try (s; InputStream in = s.getInputStream(); OutputStream out = s.getOutputStream()) {
            s.setTcpNoDelay(true);
            int mode = in.read();
            if (mode == 'p') {
                for (int b; (b = in.read()) >= 0; ) {
                    out.write(b);
                    out.flush();
                }
            } else {
                long expected = new java.io.DataInputStream(in).readLong();
                byte[] buf = new byte[65536];
                long got = 0;
                while (got < expected) {
                    int n = in.read(buf);
                    if (n < 0) {
                        return;
                    }
                    got += n;
                }
                out.write(1);
                out.flush();
            }
        } catch (Exception e) {
            // connection closed
        }
    }

    @AfterEach
    void stop() throws Exception {
        server.close();
        wan.close();
    }

    private Socket connect() throws Exception {
        InetSocketAddress via = wan.proxy("a", "b", new InetSocketAddress(InetAddress.getLoopbackAddress(), server.getLocalPort()));
        Socket s = new Socket(via.getAddress(), via.getPort());
        s.setTcpNoDelay(true);
        sockets.add(s);
        return s;
    }

    /** A connection to the echo server in ping mode. */
    private Socket pingConnection() throws Exception {
        Socket s = connect();
        s.getOutputStream().write('p');
        return s;
    }

    /** Milliseconds for byte {@code b} to go to the echo server and back. */
    private static double pingMs(Socket s, int b) throws Exception {
        long start = System.nanoTime();
        s.getOutputStream().write(b);
        s.getOutputStream().flush();
        assertEquals(b, s.getInputStream().read());
        return (System.nanoTime() - start) / 1e6;
    }

    @Test
    void roundTripTimeIsTwiceTheLatency() throws Exception {
        try (Socket s = pingConnection()) {
            List<Double> rtts = new ArrayList<>();
            for (int i = 0; i < 12; i++) {
                rtts.add(pingMs(s, i));
            }
            Collections.sort(rtts);
            double medianMs = rtts.get(rtts.size() / 2);
            double expectedMs = 2 * LATENCY.toMillis();
            System.out.printf("RTT: min %.2f ms, median %.2f ms, configured %.2f ms%n", rtts.get(0), medianMs, expectedMs);
            assertTrue(rtts.get(0) >= expectedMs, "never faster than the link: " + rtts.get(0));
            // the fastest round trip shows what the emulator adds; the median also holds the machine's load
            assertTrue(rtts.get(0) <= expectedMs * 1.05 + 2, "fastest RTT " + rtts.get(0) + " ms for " + expectedMs
                    + " ms (median " + medianMs + " ms)");
        }
    }

    /** Sends {@code bytes} and returns the seconds until the receiver had them all (minus the reply's latency). */
    private double transfer(Socket s, int bytes) throws Exception {
        OutputStream out = s.getOutputStream();
        long start = System.nanoTime();
        out.write('b');
        new java.io.DataOutputStream(out).writeLong(bytes);
        byte[] chunk = new byte[64 * 1024];
        for (int sent = 0; sent < bytes; sent += chunk.length) {
            out.write(chunk, 0, Math.min(chunk.length, bytes - sent));
        }
        out.flush();
        assertEquals(1, s.getInputStream().read());
        return (System.nanoTime() - start) / 1e9 - LATENCY.toNanos() / 1e9;
    }

    @Test
    void bulkTransferRunsAtTheConfiguredBandwidth() throws Exception {
        try (Socket warm = connect()) {
            transfer(warm, 200_000); // class loading and JIT of the relay path, not the link, on a fresh JVM
        }
        int bytes = 2_000_000;
        double expected = (double) bytes / BANDWIDTH + LATENCY.toNanos() / 1e9;
        List<Double> took = new ArrayList<>();
        // up to three transfers: every one no faster than the link, the fastest within 5 % of it (a
        // loaded machine can delay the relay's threads in one transfer, never make the link faster)
        for (int attempt = 0; attempt < 3 && (took.isEmpty() || Collections.min(took) > expected * 1.05 + 0.01); attempt++) {
            wan.resetCounters();
            try (Socket s = connect()) {
                double seconds = transfer(s, bytes);
                System.out.printf("bulk: %.4f s, configured %.4f s (%+.1f%%)%n", seconds, expected, 100 * (seconds / expected - 1));
                assertTrue(seconds >= expected * 0.97, "took " + seconds + " s, expected " + expected);
                took.add(seconds);
            }
            assertEquals(bytes + 9, wan.bytesCarried("a", "b"), "bytes counted on the link: " + wan.bytesPerLink());
            assertEquals(1, wan.bytesCarried("b", "a"), "the one-byte reply");
        }
        assertTrue(Collections.min(took) <= expected * 1.05 + 0.01, "transfers took " + took + " s, expected " + expected);
    }

    @Test
    void connectionsOnALinkShareItsBandwidth() throws Exception {
        try (Socket warm = connect()) {
            transfer(warm, 200_000);
        }
        int bytes = 1_000_000;
        Socket s1 = connect();
        Socket s2 = connect();
        CompletableFuture<Double> t1 = CompletableFuture.supplyAsync(() -> {
            try {
                return transfer(s1, bytes);
            } catch (Exception e) {
                throw new IllegalStateException(e);
            }
        });
        double t2 = transfer(s2, bytes);
        double both = Math.max(t1.get(10, TimeUnit.SECONDS), t2);
        double expected = 2.0 * bytes / BANDWIDTH + LATENCY.toNanos() / 1e9;
        System.out.printf("shared: %.4f s, configured %.4f s (%+.1f%%)%n", both, expected, 100 * (both / expected - 1));
        // unshared, each would take about half as long; the margins leave room for a loaded machine (a
        // full build on 2 cores saw +13 %) and for the bucket's burst (-4.6 % seen once)
        assertTrue(both >= expected * 0.9 && both <= expected * 1.3 + 0.01,
                "two transfers took " + both + " s, expected " + expected + " s on a shared link");
        s1.close();
        s2.close();
    }

    @Test
    void aShortMessageDoesNotWaitBehindAnotherConnectionsBulkTransfer() throws Exception {
        try (Socket warm = connect()) {
            transfer(warm, 200_000);
        }
        try (Socket bulk = connect(); Socket ping = pingConnection()) {
            pingMs(ping, 0); // the ping connection is open end to end
            CompletableFuture<Double> transfer = CompletableFuture.supplyAsync(() -> {
                try {
                    return transfer(bulk, 1_000_000); // 250 ms of the link
                } catch (Exception e) {
                    throw new IllegalStateException(e);
                }
            });
            Thread.sleep(60); // the bulk bytes now fill the link
            double pingMs = pingMs(ping, 1);
            double bulkSeconds = transfer.get(10, TimeUnit.SECONDS);
            System.out.printf("ping during a bulk transfer: %.2f ms (bulk %.3f s)%n", pingMs, bulkSeconds);
            // first come first served, it would wait for the ~0.2 s of bulk bytes already read (~280 ms in all);
            // in turns, for at most a slice and the link's 1 ms horizon, plus this test's threads waking: 81-85 ms
            // idle, 115 ms once in a full build whose bulk transfer also ran 20 % long. The bound sits between
            assertTrue(pingMs < 2 * LATENCY.toMillis() + 60, "a ping behind 1 MB on another connection took " + pingMs + " ms");
            assertTrue(bulkSeconds > 0.2, "the bulk transfer was still going on: " + bulkSeconds + " s");
        }
    }

    @Test
    void delaysCanBeTurnedOffForWarmingUpAndBackOn() throws Exception {
        try (Socket s = pingConnection()) {
            wan.setDelaying(false);
            assertFalse(wan.isDelaying());
            double offMs = 0;
            for (int i = 0; i < 20; i++) { // 20 round trips, 1.6 s with the link's delays
                offMs += pingMs(s, i);
            }
            assertTrue(offMs < 2 * LATENCY.toMillis(), "20 round trips without delays took " + offMs + " ms");
            wan.setDelaying(true);
            double onMs = pingMs(s, 99);
            assertTrue(onMs >= 2 * LATENCY.toMillis(), "a round trip with delays back on took " + onMs + " ms");
        }
        assertEquals(22, wan.bytesCarried("a", "b"), "bytes are counted with delays off too");
    }

    @Test
    void paperTopologyHasTheFigure7Links() {
        WanTopology t = WanTopology.paperFigure7();
        assertEquals(Duration.ofMillis(73), t.link(WanTopology.REDMOND, WanTopology.BEIJING).latency());
        assertEquals(2_100_000, t.link(WanTopology.BEIJING, WanTopology.MOUNTAIN_VIEW).bytesPerSecond());
        assertEquals(Duration.ofMillis(1), t.link(WanTopology.BEIJING, WanTopology.BEIJING).latency());
    }
}
