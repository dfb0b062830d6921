package io.rpcc.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.rpcc.client.ChainCall;
import io.rpcc.client.RpccClient;
import io.rpcc.core.HopUnreachableException;
import io.rpcc.core.Refusal;
import io.rpcc.core.internal.wire.GoAwayFrame;
import io.rpcc.core.internal.wire.Hello;
import io.rpcc.core.internal.wire.PingFrame;
import io.rpcc.core.testing.RawPeer;
import java.io.DataInputStream;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.LongSupplier;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Connection health on real sockets: a node PINGs a connection that went quiet, keeps one whose peer
 * answers, closes one whose peer does not ({@link Refusal#SILENT_PEER}), still closes an idle one
 * however many PINGs it carried, and spaces out attempts to reconnect to an address it could not reach.
 */
class ConnectionHealthTest {
    private Cluster cluster;

    @BeforeEach
    void start() {
        cluster = new Cluster();
    }

    @AfterEach
    void stop() throws Exception {
        cluster.close();
    }

    private RpccServer pinging(String name, Duration idle) {
        return cluster.server(name, b -> b.connectionHealth(Duration.ofMillis(200), Duration.ofMillis(300))
                .idleTimeout(idle).service("echo", p -> p));
    }

    private static InetSocketAddress at(RpccServer s) {
        return new InetSocketAddress(InetAddress.getLoopbackAddress(), s.address().getPort());
    }

    @Test
    void aPeerThatAnswersNoPingIsClosed() throws Exception {
        RpccServer server = pinging("pinger", Duration.ZERO);
        try (RawPeer p = new RawPeer("mute", at(server))) {
            p.handshake();
            long start = System.nanoTime();
            Object frame = p.readFrame(); // nothing sent: after 200 ms the node asks
            assertInstanceOf(PingFrame.class, frame);
            assertFalse(((PingFrame) frame).ack());
            assertTrue(System.nanoTime() - start >= 150_000_000L, "not before the ping interval");
            assertTrue(p.closedWithin(3000), "closed when no answer came within the ping timeout");
        }
        awaitAtLeast(() -> server.stats().refused(Refusal.SILENT_PEER), 1);
        assertTrue(server.stats().pingsSent() >= 1);
    }

    @Test
    void aPeerThatAnswersStaysConnected() throws Exception {
        RpccServer server = pinging("pinger", Duration.ZERO);
        try (RawPeer p = new RawPeer("talker", at(server))) {
            p.handshake();
            long until = System.nanoTime() + 2_000_000_000L; // ten ping intervals
            int answered = 0;
            while (System.nanoTime() < until) {
                String type = p.nextFrame(1000);
                assertEquals("PING", type, "only PINGs on a quiet connection, and it stays open");
                p.send(RawPeer.bytes(new PingFrame(true, 42)));
                answered++;
            }
            assertTrue(answered >= 4, "pinged every interval: " + answered);
            assertEquals(0, server.stats().refused(Refusal.SILENT_PEER));
            // and it answers PINGs itself, echoing the payload
            p.send(RawPeer.bytes(new PingFrame(false, 7)));
            Object answer = p.readFrame();
            while (answer instanceof PingFrame f && !f.ack()) {
                answer = p.readFrame();
            }
            assertEquals(new PingFrame(true, 7), answer);
            // then it stops answering: closed
            assertTrue(p.closedWithin(3000), "closed once the PINGs go unanswered");
        }
        awaitAtLeast(() -> server.stats().refused(Refusal.SILENT_PEER), 1);
    }

    @Test
    void pingsDoNotKeepAnIdleConnectionOpen() throws Exception {
        RpccServer server = pinging("idler", Duration.ofMillis(1200));
        try (RawPeer p = new RawPeer("talker", at(server))) {
            p.handshake();
            long start = System.nanoTime();
            String type;
            while ("PING".equals(type = p.nextFrame(3000))) {
                p.send(RawPeer.bytes(new PingFrame(true, 1)));
            }
            assertEquals("GOAWAY", type, "let go at the idle timeout, PINGs or not");
            p.send(RawPeer.bytes(GoAwayFrame.IDLE_CONNECTION));
            assertEquals("closed", p.nextFrame(3000), "closed once answered");
            assertTrue(System.nanoTime() - start >= 1_000_000_000L, "not before the idle timeout");
        }
        awaitAtLeast(() -> server.stats().refused(Refusal.IDLE_TIMEOUT), 1);
        assertEquals(0, server.stats().refused(Refusal.SILENT_PEER));
    }

    @Test
    void aClientClosesItsConnectionToAServerThatFellSilent() throws Exception {
        // a "server" that completes the handshake, then reads and never answers (a stalled machine)
        try (ServerSocket listener = new ServerSocket(0, 5, InetAddress.getLoopbackAddress())) {
            AtomicReference<Socket> accepted = new AtomicReference<>();
            Thread silent = Thread.ofPlatform().daemon().start(() -> {
                try {
                    Socket s = listener.accept();
                    accepted.set(s);
                    DataInputStream in = new DataInputStream(s.getInputStream());
                    byte[] hello = new byte[in.readInt()];
                    in.readFully(hello);
                    s.getOutputStream().write(RawPeer.bytes(new Hello("frozen", "127.0.0.1", listener.getLocalPort(),
                            RawPeer.MAX)));
                    s.getOutputStream().flush();
                    while (in.read(new byte[4096]) >= 0) {
                        // swallowed
                    }
                } catch (IOException e) {
                    // closed
                }
            });
            cluster.names.register("frozen", new InetSocketAddress(InetAddress.getLoopbackAddress(), listener.getLocalPort()));
            RpccClient client = cluster.client(b -> b.connectionHealth(Duration.ofMillis(200), Duration.ofMillis(300)));
            var call = client.startChain(ChainCall.to("frozen", "echo").params("x").timeout(Duration.ofSeconds(3)));
            awaitAtLeast(() -> client.stats().refused(Refusal.SILENT_PEER), 1);
            assertTrue(client.stats().pingsSent() >= 1);
            assertFalse(call.isDone(), "the hop went out before the server fell silent: only its timeout ends it");
            silent.join(5000);
            assertFalse(silent.isAlive(), "the client closed the connection");
            call.cancel(true);
        }
    }

    @Test
    void attemptsToReconnectToAnUnreachableAddressAreSpacedOut() throws Exception {
        InetSocketAddress dead = deadAddress();
        cluster.names.register("later", dead);
        RpccClient client = cluster.client(b -> b.reconnectBackoff(Duration.ofMillis(800), Duration.ofSeconds(4)));
        // one failure costs nothing: the second call tries again (a peer that restarted would be reached)
        assertTrue(messageContaining(callFailure(client, "later"), "Connection refused") != null);
        assertTrue(messageContaining(callFailure(client, "later"), "Connection refused") != null);
        // after two in a row, the next call fails at once without dialing, saying when it will try again
        Throwable held = callFailure(client, "later");
        assertTrue(messageContaining(held, "does not try to connect to 'later'") != null, held.toString());
        assertTrue(messageContaining(held, "the last 2 attempts failed") != null, held.toString());
        // the server comes up at that address; once the backoff has passed, the next call connects
        DeadAddresses.release(dead);
        RpccServer later = cluster.server("later", b -> b.listen("127.0.0.1", dead.getPort()).service("echo", p -> p));
        Thread.sleep(1100); // 800 ms, +20 % jitter at most
        assertEquals("y", client.call("later", "echo", "y").get(10, TimeUnit.SECONDS).value());
        assertTrue(later.stats().connectionsOpen() >= 1);
    }

    @Test
    void aNameWithABackupSkipsAnEndpointInBackoff() throws Exception {
        RpccServer backup = cluster.server("pair", b -> b.service("echo", p -> p + "@backup"));
        cluster.names.register("pair", deadAddress(), backup.address());
        RpccClient client = cluster.client(b -> b.reconnectBackoff(Duration.ofSeconds(30), Duration.ofSeconds(30)));
        for (String p : List.of("x", "y")) { // two failures of the primary in a row: its backoff starts
            assertEquals(p + "@backup", client.call("pair", "echo", p).join().value());
        }
        // the primary is in its 30 s backoff: the call goes to the backup at once, no waiting, no dialing
        assertEquals("z@backup", client.call("pair", "echo", "z").get(5, TimeUnit.SECONDS).value());
        assertEquals(3, client.stats().failovers());
    }

    private static InetSocketAddress deadAddress() {
        return DeadAddresses.next(); // nobody listens, and no other node can take the port meanwhile
    }

    @Test
    void withoutBackoffEveryCallTriesAtOnce() throws Exception {
        cluster.names.register("gone", deadAddress());
        RpccClient client = cluster.client(b -> b.reconnectBackoff(Duration.ZERO, Duration.ZERO));
        for (int i = 0; i < 3; i++) {
            Throwable t = callFailure(client, "gone");
            assertTrue(messageContaining(t, "Connection refused") != null, t.toString());
        }
    }

    private static Throwable callFailure(RpccClient client, String server) {
        Throwable t = assertThrows(CompletionException.class, () -> client.call(server, "echo", "x").join());
        Throwable e = t instanceof CompletionException && t.getCause() != null ? t.getCause() : t;
        assertInstanceOf(HopUnreachableException.class, e, e::toString);
        return e;
    }

    private static String messageContaining(Throwable t, String text) {
        for (Throwable c = t; c != null; c = c.getCause()) {
            if (c.getMessage() != null && c.getMessage().contains(text)) {
                return c.getMessage();
            }
        }
        return null;
    }

    private static void awaitAtLeast(LongSupplier counter, long atLeast) throws InterruptedException {
        long deadline = System.nanoTime() + 10_000_000_000L;
        while (counter.getAsLong() < atLeast && System.nanoTime() < deadline) {
            Thread.sleep(20);
        }
        assertTrue(counter.getAsLong() >= atLeast, "counter reached " + counter.getAsLong() + ", expected " + atLeast);
    }
}
