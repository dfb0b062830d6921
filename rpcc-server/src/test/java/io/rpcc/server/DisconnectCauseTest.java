package io.rpcc.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.rpcc.client.ChainCall;
import io.rpcc.client.RpccClient;
import io.rpcc.core.Disconnect;
import io.rpcc.core.testing.RawPeer;
import java.util.concurrent.TimeUnit;
import java.util.function.LongSupplier;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** Connections that close are counted once, by cause ({@link ServerStats#disconnects()}, {@code ClientStats}). */
@Timeout(value = 1, unit = TimeUnit.MINUTES)
class DisconnectCauseTest {
    final Cluster cluster = new Cluster();

    @AfterEach
    void stop() throws Exception {
        cluster.close();
    }

    @Test
    void eachCloseIsCountedByItsCause() throws Exception {
        RpccServer s = cluster.server("d", b -> b.service("echo", p -> p));

        // a peer that breaks the protocol: refused, and its connection closed by the server
        try (RawPeer p = new RawPeer("early", s.address())) {
            p.send(RawPeer.bytes(p.request(1, "echo", null)));
            assertTrue(p.closedWithin(5000), "connection closed");
        }
        awaitEquals(1, () -> s.stats().disconnected(Disconnect.REFUSED));

        // a peer that says hello and goes away
        try (RawPeer p = new RawPeer("leaves", s.address())) {
            p.hello("leaves", "127.0.0.1", 9);
        }
        awaitEquals(1, () -> s.stats().disconnected(Disconnect.PEER_CLOSED));

        // a client's connections close with it: as the client closing there, as the peer closing here
        RpccClient c = cluster.client();
        assertEquals("x", c.runChain(ChainCall.to("d", "echo").params("x")).value());
        int open = c.stats().connectionsOpen();
        assertTrue(open >= 1, "the client holds a connection");
        c.close();
        assertEquals(open, c.stats().disconnected(Disconnect.NODE_CLOSED));
        awaitEquals(1 + open, () -> s.stats().disconnected(Disconnect.PEER_CLOSED));
        for (Disconnect d : new Disconnect[] {Disconnect.ERROR, Disconnect.HANDSHAKE_FAILED, Disconnect.RECLAIMED,
                Disconnect.NODE_CLOSED}) {
            assertEquals(0, s.stats().disconnected(d), d.name());
        }
        assertEquals(1, s.stats().disconnected(Disconnect.REFUSED), "counted once, by its first cause");
    }

    private static void awaitEquals(long expected, LongSupplier actual) throws InterruptedException {
        long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (actual.getAsLong() < expected && System.nanoTime() < end) {
            Thread.sleep(5);
        }
        assertEquals(expected, actual.getAsLong());
    }
}
