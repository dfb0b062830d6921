package io.rpcc.testkit;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.SocketException;
import java.net.SocketTimeoutException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The emulator's asymmetric and per-site links, and its faults (cut, stall, heal, reset, a frame
 * dropped midway), seen through plain sockets at both ends of a proxied connection.
 */
class WanFaultsTest {
    /** a → b is slow, b → a fast; a ↔ c is short both ways; inside c is slower than inside a. */
    static final WanTopology TOPOLOGY = WanTopology.builder()
            .oneWay("a", "b", Duration.ofMillis(100), 10_000_000)
            .oneWay("b", "a", Duration.ofMillis(10), 10_000_000)
            .link("a", "c", Duration.ofMillis(5), 10_000_000)
            .link("b", "c", Duration.ofMillis(5), 10_000_000)
            .intraSite(Duration.ofMillis(1), 10_000_000)
            .intraSite("c", Duration.ofMillis(40), 10_000_000)
            .build();

    WanEmulator wan;
    ServerSocket server;
    final BlockingQueue<Socket> accepted = new LinkedBlockingQueue<>();
    final List<Socket> sockets = Collections.synchronizedList(new ArrayList<>());

    @BeforeEach
    void start() throws Exception {
        wan = new WanEmulator(TOPOLOGY);
        server = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
        Thread.ofPlatform().daemon().start(() -> {
            while (!server.isClosed()) {
                try {
                    Socket s = server.accept();
                    s.setTcpNoDelay(true);
                    sockets.add(s);
                    accepted.add(s);
                } catch (IOException e) {
                    return;
                }
            }
        });
    }

    @AfterEach
    void stop() throws Exception {
        server.close();
        for (Socket s : sockets) {
            s.close();
        }
        wan.close();
    }

    /** A connection from a node in {@code from} to the server in {@code to}, and its server side. */
    private record Pair(Socket client, Socket server) {
    }

    private Socket dial(String from, String to) throws Exception {
        InetSocketAddress via = wan.proxy(from, to, new InetSocketAddress(InetAddress.getLoopbackAddress(), server.getLocalPort()));
        Socket s = new Socket(via.getAddress(), via.getPort());
        s.setTcpNoDelay(true);
        sockets.add(s);
        return s;
    }

    private Pair connect(String from, String to) throws Exception {
        Socket client = dial(from, to);
        Socket srv = accepted.poll(5, TimeUnit.SECONDS);
        assertNotNull(srv, "the proxy connected to the server");
        return new Pair(client, srv);
    }

    private static void send(Socket s, byte[] bytes) throws IOException {
        s.getOutputStream().write(bytes);
        s.getOutputStream().flush();
    }

    private static byte[] readExactly(Socket s, int n) throws IOException {
        s.setSoTimeout(10_000);
        return s.getInputStream().readNBytes(n);
    }

    /** Byte {@code b} sent from {@code from} arrives at {@code to}. */
    private static void assertCrosses(Socket from, Socket to, int b, String what) throws IOException {
        send(from, new byte[] {(byte) b});
        assertEquals(b, readExactly(to, 1)[0], what);
    }

    /** Whether nothing arrives at {@code s} within {@code millis}. */
    private static boolean silentFor(Socket s, int millis) throws IOException {
        s.setSoTimeout(millis);
        try {
            int b = s.getInputStream().read();
            throw new AssertionError("expected silence, read " + b);
        } catch (SocketTimeoutException e) {
            return true;
        }
    }

    private static void await(BooleanSupplier condition, String what) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() > deadline) {
                throw new AssertionError("timed out waiting until " + what);
            }
            Thread.sleep(5);
        }
    }

    private static byte[] sequence(int n, int offset) {
        byte[] b = new byte[n];
        for (int i = 0; i < n; i++) {
            b[i] = (byte) (i + offset);
        }
        return b;
    }

    /** One byte each way on {@code p}; returns the milliseconds it took there and back. */
    private static double[] oneWayMs(Pair p) throws IOException {
        long t0 = System.nanoTime();
        send(p.client(), new byte[] {1});
        assertEquals(1, readExactly(p.server(), 1).length);
        long t1 = System.nanoTime();
        send(p.server(), new byte[] {2});
        assertEquals(1, readExactly(p.client(), 1).length);
        long t2 = System.nanoTime();
        return new double[] {(t1 - t0) / 1e6, (t2 - t1) / 1e6};
    }

    /** The fastest of a few one-way crossings each way. */
    private static double[] fastestOneWayMs(Pair p) throws IOException {
        double there = Double.MAX_VALUE;
        double back = Double.MAX_VALUE;
        for (int i = 0; i < 5; i++) {
            double[] ms = oneWayMs(p);
            there = Math.min(there, ms[0]);
            back = Math.min(back, ms[1]);
        }
        return new double[] {there, back};
    }

    @Test
    void topologyLinksCanDifferByDirectionAndSitesCanHaveTheirOwnInsideLink() {
        assertEquals(Duration.ofMillis(100), TOPOLOGY.link("a", "b").latency());
        assertEquals(Duration.ofMillis(10), TOPOLOGY.link("b", "a").latency());
        assertEquals(Duration.ofMillis(5), TOPOLOGY.link("c", "a").latency());
        assertEquals(Duration.ofMillis(40), TOPOLOGY.link("c", "c").latency());
        assertEquals(Duration.ofMillis(40), TOPOLOGY.intraSite("c").latency());
        assertEquals(Duration.ofMillis(1), TOPOLOGY.link("a", "a").latency(), "the default inside a site");
        assertEquals(TOPOLOGY.intraSite(), TOPOLOGY.intraSite("b"));
        assertEquals(TOPOLOGY.link("a", "b"), TOPOLOGY.toBuilder().build().link("a", "b"));
        assertEquals(TOPOLOGY.intraSite("c"), TOPOLOGY.toBuilder().build().intraSite("c"));

        IllegalStateException oneWayOnly = assertThrows(IllegalStateException.class,
                () -> WanTopology.builder().oneWay("x", "y", Duration.ofMillis(5), 1000).build());
        assertTrue(oneWayOnly.getMessage().contains("from 'y' to 'x'"), oneWayOnly.getMessage());
        WanTopology overridden = WanTopology.builder().link("x", "y", Duration.ofMillis(5), 1000)
                .oneWay("y", "x", Duration.ofMillis(7), 2000).build();
        assertEquals(new WanTopology.Link(Duration.ofMillis(5), 1000), overridden.link("x", "y"));
        assertEquals(new WanTopology.Link(Duration.ofMillis(7), 2000), overridden.link("y", "x"));
        assertThrows(IllegalArgumentException.class, () -> WanTopology.builder().oneWay("x", "x", Duration.ZERO, 1));
        assertThrows(IllegalArgumentException.class, () -> TOPOLOGY.intraSite("nowhere"));
    }

    @Test
    void eachDirectionOfAnAsymmetricLinkHasItsOwnLatency() throws Exception {
        Pair p = connect("a", "b");
        double[] ms = fastestOneWayMs(p);
        System.out.printf("a → b %.1f ms (100 configured), b → a %.1f ms (10 configured)%n", ms[0], ms[1]);
        assertTrue(ms[0] >= 100, "a → b took " + ms[0] + " ms");
        assertTrue(ms[1] >= 10, "b → a took " + ms[1] + " ms");
        assertTrue(ms[0] - ms[1] > 50, "a → b " + ms[0] + " ms vs b → a " + ms[1] + " ms");
    }

    @Test
    void aSiteWithItsOwnInsideLinkUsesIt() throws Exception {
        double[] insideA = fastestOneWayMs(connect("a", "a"));
        double[] insideC = fastestOneWayMs(connect("c", "c"));
        System.out.printf("inside a %.1f ms one way (1 configured), inside c %.1f ms (40 configured)%n", insideA[0], insideC[0]);
        assertTrue(insideC[0] >= 40 && insideC[1] >= 40, "inside c: " + Arrays.toString(insideC));
        assertTrue(insideC[0] - insideA[0] > 20, "inside c " + insideC[0] + " ms vs inside a " + insideA[0] + " ms");
    }

    @Test
    void aCutHoldsBytesAndTheHealDeliversThemInOrder() throws Exception {
        Pair p = connect("a", "c");
        assertCrosses(p.client(), p.server(), 42, "before the cut");

        wan.cut("a", "c");
        assertTrue(wan.isCut("a", "c"));
        assertFalse(wan.isCut("c", "a"), "one direction only");
        byte[] held = sequence(3000, 0);
        for (int i = 0; i < held.length; i += 1000) {
            send(p.client(), Arrays.copyOfRange(held, i, i + 1000));
        }
        await(() -> wan.bytesHeld("a", "c") == held.length, "the cut holds the 3000 bytes (" + wan.bytesHeld("a", "c") + ")");
        assertTrue(silentFor(p.server(), 300), "nothing crosses a cut");
        assertCrosses(p.server(), p.client(), 7, "the other direction still carries bytes");

        wan.heal("a", "c");
        assertFalse(wan.isCut("a", "c"));
        assertArrayEquals(held, readExactly(p.server(), held.length), "held bytes arrive after the heal, in order");
        assertEquals(0, wan.bytesHeld("a", "c"));
        assertCrosses(p.client(), p.server(), 43, "the link carries bytes again");
    }

    @Test
    void aCloseAcrossACutArrivesAfterTheHeal() throws Exception {
        Pair p = connect("a", "c");
        wan.cut("a", "c");
        send(p.client(), new byte[] {1, 2, 3});
        p.client().shutdownOutput();
        assertTrue(silentFor(p.server(), 300), "neither the bytes nor the close cross a cut");
        wan.heal("a", "c");
        assertArrayEquals(new byte[] {1, 2, 3}, readExactly(p.server(), 3));
        assertEquals(-1, p.server().getInputStream().read(), "then the end of the stream");
    }

    @Test
    void bytesSentAndClosedRightAfterConnectingStillCross() throws Exception {
        for (int i = 0; i < 5; i++) { // the proxy may read them before it has connected to the server
            Socket client = dial("a", "c");
            send(client, new byte[] {1, 2, (byte) i});
            client.shutdownOutput();
            Socket srv = accepted.poll(5, TimeUnit.SECONDS);
            assertNotNull(srv);
            assertArrayEquals(new byte[] {1, 2, (byte) i}, readExactly(srv, 3));
            assertEquals(-1, srv.getInputStream().read());
        }
    }

    @Test
    void aNewConnectionAcrossACutDoesNotEstablishUntilTheHeal() throws Exception {
        wan.cut("c", "a"); // a connection needs both directions: cutting the way back is enough
        Socket client = dial("a", "c"); // accepted by the proxy locally
        send(client, new byte[] {9, 8, 7});
        assertNull(accepted.poll(400, TimeUnit.MILLISECONDS), "the proxy did not connect to the server across the cut");
        assertTrue(silentFor(client, 100));

        wan.heal("c", "a");
        Socket srv = accepted.poll(5, TimeUnit.SECONDS);
        assertNotNull(srv, "after the heal the connection proceeds");
        assertArrayEquals(new byte[] {9, 8, 7}, readExactly(srv, 3), "with what the client sent meanwhile");
        assertCrosses(srv, client, 6, "and back");
    }

    @Test
    void aStallHoldsBytesButNewConnectionsEstablish() throws Exception {
        wan.stallBoth("a", "c");
        assertTrue(wan.isStalled("a", "c") && wan.isStalled("c", "a"));
        assertFalse(wan.isCut("a", "c"));
        Pair p = connect("a", "c"); // unlike across a cut, the proxy connects
        send(p.client(), sequence(500, 3));
        await(() -> wan.bytesHeld("a", "c") == 500, "the stall holds the bytes");
        assertTrue(silentFor(p.server(), 300), "nothing crosses a stalled link");
        send(p.server(), new byte[] {5});
        assertTrue(silentFor(p.client(), 200), "nor the other stalled direction");

        wan.healAll();
        assertArrayEquals(sequence(500, 3), readExactly(p.server(), 500));
        assertEquals(5, readExactly(p.client(), 1)[0]);
        assertFalse(wan.isStalled("a", "c"));
    }

    @Test
    void aResetClosesBothSidesOfTheConnectionsOpenedThatWay() throws Exception {
        Pair p = connect("a", "c");
        Pair otherWay = connect("c", "a");
        assertCrosses(p.client(), p.server(), 1, "established");
        wan.cut("a", "c");
        send(p.client(), new byte[] {2, 3}); // held: the reset drops them (the leak check sees they are released)
        await(() -> wan.bytesHeld("a", "c") == 2, "bytes held");

        assertEquals(1, wan.reset("a", "c"));
        assertEquals(1, wan.connectionsReset("a", "c"));
        wan.heal("a", "c");
        assertClosedByReset(p.server());
        assertClosedByReset(p.client());
        assertEquals(0, wan.bytesHeld("a", "c"));

        assertCrosses(otherWay.client(), otherWay.server(), 4, "opened from c: not reset");
        assertEquals(0, wan.connectionsReset("c", "a"));
        Pair fresh = connect("a", "c");
        assertCrosses(fresh.client(), fresh.server(), 5, "new connections work after a reset");
    }

    /** Reading {@code s} fails with a reset (an RST, not a FIN: no end of stream). */
    private static void assertClosedByReset(Socket s) throws IOException {
        s.setSoTimeout(5_000);
        SocketException e = assertThrows(SocketException.class, () -> {
            InputStream in = s.getInputStream();
            for (int i = 0; i < 10 && in.read() >= 0; i++) {
                // a byte that had crossed before the reset
            }
        });
        assertTrue(e.getMessage().toLowerCase().contains("reset"), e.toString());
    }

    @Test
    void aDropMidFrameDeliversAStrictPrefixThenCloses() throws Exception {
        Pair p = connect("a", "c");
        assertCrosses(p.client(), p.server(), 1, "established");

        wan.dropMidFrame("a", "c");
        byte[] frame = sequence(100, 10);
        send(p.client(), frame);
        p.server().setSoTimeout(10_000);
        ByteArrayOutputStream got = new ByteArrayOutputStream();
        InputStream in = p.server().getInputStream();
        for (int b; (b = in.read()) >= 0; ) { // to the end of the stream: a FIN, not a reset
            got.write(b);
        }
        byte[] prefix = got.toByteArray();
        assertTrue(prefix.length >= 1 && prefix.length < frame.length, "delivered " + prefix.length + " of 100 bytes");
        assertArrayEquals(Arrays.copyOf(frame, prefix.length), prefix, "a prefix of the frame");
        assertEquals(1, wan.midFrameDrops("a", "c"));
        assertEquals(-1, readOrEnd(p.client()), "the sender's side is closed too");

        Pair next = connect("a", "c");
        send(next.client(), frame);
        assertArrayEquals(frame, readExactly(next.server(), frame.length), "the drop was armed for one frame only");
        assertEquals(1, wan.midFrameDrops("a", "c"));
    }

    @Test
    void closingTheEmulatorReleasesWhatACutHolds() throws Exception {
        Pair p = connect("a", "c");
        wan.cutBoth("a", "c");
        send(p.client(), sequence(64 * 1024, 0));
        send(p.server(), sequence(1000, 0));
        await(() -> wan.bytesHeld("a", "c") == 64 * 1024 && wan.bytesHeld("c", "a") == 1000, "both directions hold bytes");
        Socket waiting = dial("a", "c"); // and a connection waiting for the heal
        wan.close(); // the leak check fails the class if a held buffer was not released
        assertEquals(-1, readOrEnd(waiting));
        wan.healAll(); // faults after the close change nothing and do not fail
        assertEquals(0, wan.reset("a", "c"));
    }

    private static int readOrEnd(Socket s) throws IOException {
        s.setSoTimeout(5_000);
        try {
            return s.getInputStream().read();
        } catch (SocketException e) {
            return -1;
        }
    }
}
