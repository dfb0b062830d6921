package io.rpcc.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.rpcc.client.RpccClient;
import io.rpcc.core.Refusal;
import io.rpcc.core.internal.wire.ChainResultFrame;
import io.rpcc.core.internal.wire.GoAwayFrame;
import io.rpcc.core.testing.RawPeer;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.HashSet;
import java.util.Set;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * How a node lets an idle connection go, against peers that play by the rules and peers that do
 * not, on real sockets: it writes a GOAWAY, serves what the peer wrote until the peer answered with
 * its own, then closes; a peer that ignores the GOAWAY (and keeps writing, or never closes) has its
 * connection closed at the node's ping timeout, served until then; a flood of GOAWAYs is answered
 * once. The node serves others throughout.
 */
class GoAwayTest {
    /** The server's ping timeout: the bound on a connection after its GOAWAY. */
    private static final Duration BOUND = Duration.ofMillis(1500);
    static final AtomicInteger runs = new AtomicInteger();
    static Cluster cluster;
    static RpccServer idler;
    static RpccServer patient;
    static RpccClient client;

    @BeforeAll
    static void start() {
        cluster = new Cluster();
        idler = cluster.server("idler", b -> b
                .idleTimeout(Duration.ofMillis(300))
                .connectionHealth(Duration.ofSeconds(30), BOUND)
                .service("echo", p -> p)
                .service("count", p -> runs.incrementAndGet()));
        // a bound far beyond what the tests wait: a close they see is the answer's, not the bound's
        patient = cluster.server("patient", b -> b
                .idleTimeout(Duration.ofMillis(300))
                .connectionHealth(Duration.ofSeconds(60), Duration.ofSeconds(60))
                .service("count", p -> runs.incrementAndGet()));
        client = cluster.client();
    }

    @AfterAll
    static void stop() throws Exception {
        cluster.close();
    }

    @AfterEach
    void othersAreStillServed() {
        assertEquals("alive", client.call("idler", "echo", "alive").join().value());
    }

    private static InetSocketAddress at(RpccServer s) {
        return s.address();
    }

    /** The next result read from the node's connection back to {@code p} (GOAWAYs there skipped). */
    private static ChainResultFrame resultOf(RawPeer p) throws IOException {
        Object frame = p.read();
        while (frame instanceof GoAwayFrame) {
            frame = p.read();
        }
        return assertInstanceOf(ChainResultFrame.class, frame);
    }

    @Test
    void aPeerThatAnswersTheGoAwayIsServedWhatItWroteBeforeAndTheConnectionCloses() throws Exception {
        long idleBefore = patient.stats().refused(Refusal.IDLE_TIMEOUT);
        int runsBefore = runs.get();
        try (RawPeer p = new RawPeer("polite", at(patient))) {
            p.handshake();
            assertEquals("GOAWAY", p.nextFrame(10_000), "the idle connection is let go with a GOAWAY");
            // written after the node's GOAWAY went out but before this peer's answer: still served
            p.send(RawPeer.bytes(p.request(1, "count", null)), RawPeer.bytes(GoAwayFrame.IDLE_CONNECTION));
            assertEquals(1, resultOf(p).chainId());
            // closed on the answer, not at the (60 s) bound
            assertEquals("closed", p.nextFrame(10_000), "the node closes once the peer answered");
        }
        assertEquals(runsBefore + 1, runs.get(), "the request written after the GOAWAY ran");
        // counted as an idle close (the node's connection back to this peer may have gone idle meanwhile too)
        assertTrue(patient.stats().refused(Refusal.IDLE_TIMEOUT) > idleBefore, "counted as an idle close");
    }

    @Test
    void aPeerThatIgnoresTheGoAwayAndKeepsWritingIsServedUntilTheBoundThenClosed() throws Exception {
        int runsBefore = runs.get();
        int sent = 0;
        try (RawPeer p = new RawPeer("deaf", at(idler))) {
            p.handshake();
            assertEquals("GOAWAY", p.nextFrame(10_000));
            long start = System.nanoTime();
            String next = null;
            while (next == null && System.nanoTime() - start < 20 * BOUND.toNanos()) {
                try {
                    p.send(RawPeer.bytes(p.request(++sent, "count", null)));
                } catch (IOException e) {
                    break; // (the node closed it meanwhile)
                }
                next = p.nextFrame(50);
            }
            assertEquals("closed", next != null ? next : p.nextFrame(10_000), "the node closes it at the bound");
            Set<Long> answered = new HashSet<>(); // (hops run side by side: their results come in any order)
            for (int i = 0; i < sent && !answered.containsAll(Set.of(1L, 2L, 3L)); i++) {
                answered.add(resultOf(p).chainId());
            }
            assertTrue(answered.containsAll(Set.of(1L, 2L, 3L)), "the first ones written after the GOAWAY were served: "
                    + answered);
        }
        assertTrue(sent > 3, "it kept writing for a while: " + sent);
        assertTrue(runs.get() - runsBefore >= 3, "what it wrote before the close ran: " + (runs.get() - runsBefore));
    }

    @Test
    void aPeerThatNeverAnswersNorClosesIsClosedAtTheBound() throws Exception {
        try (RawPeer p = new RawPeer("mute", at(idler))) {
            p.handshake();
            assertEquals("GOAWAY", p.nextFrame(10_000));
            assertEquals("closed", p.nextFrame(10_000), "closed at the bound, nothing written after the GOAWAY");
        }
    }

    @Test
    void aFloodOfGoAwaysIsAnsweredOnceAndTheConnectionCloses() throws Exception {
        byte[] one = RawPeer.bytes(GoAwayFrame.IDLE_CONNECTION);
        byte[] flood = new byte[one.length * 20_000];
        for (int i = 0; i < 20_000; i++) {
            System.arraycopy(one, 0, flood, i * one.length, one.length);
        }
        long badBefore = patient.stats().refused(Refusal.TOO_MANY_BAD_FRAMES);
        try (RawPeer p = new RawPeer("flood", at(patient))) {
            p.handshake();
            try {
                p.send(flood);
            } catch (IOException e) {
                // the node closed while the flood was still being written: fine
            }
            // answered once, then closed (not at the 60 s bound); the close may come as a reset, the node
            // leaving the rest of the flood unread, which can take the answer with it
            String first = p.nextFrame(10_000);
            assertTrue("GOAWAY".equals(first) || "closed".equals(first), first);
            if ("GOAWAY".equals(first)) {
                assertEquals("closed", p.nextFrame(10_000));
            }
        }
        assertEquals(badBefore, patient.stats().refused(Refusal.TOO_MANY_BAD_FRAMES), "nothing to refuse");
    }

    @Test
    void aGoAwayFromAPeerBeforeItsHandshakeIsRefusedUnread() throws Exception {
        long before = idler.stats().refused(Refusal.FRAME_BEFORE_HELLO);
        try (RawPeer p = new RawPeer("early", at(idler))) {
            p.send(RawPeer.bytes(GoAwayFrame.IDLE_CONNECTION));
            assertEquals("closed", p.nextFrame(10_000));
        }
        assertEquals(before + 1, idler.stats().refused(Refusal.FRAME_BEFORE_HELLO));
    }
}
