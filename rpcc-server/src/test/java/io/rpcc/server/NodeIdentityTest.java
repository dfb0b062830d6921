package io.rpcc.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.rpcc.client.ChainCall;
import io.rpcc.client.RpccClient;
import io.rpcc.core.ChainResult;
import io.rpcc.core.StaticRoute;
import io.rpcc.core.testing.RawPeer;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Plaintext node identity: a node sends what is meant for a name only over a connection it opened
 * itself to the address its resolver gives for that name, so a peer that claims another node's name
 * in its HELLO gets none of that node's hops, results or replies.
 */
class NodeIdentityTest {
    static final StaticRoute S1_THEN_S2 = StaticRoute.of(StaticRoute.hop("s1", "echo"), StaticRoute.hop("s2", "who"));

    Cluster cluster;
    RpccServer s1;
    RpccClient client;

    @BeforeEach
    void start() {
        cluster = new Cluster();
        s1 = cluster.server("s1", b -> b.service("echo", p -> p));
        cluster.server("s2", b -> b.service("who", p -> "real s2 got " + p));
        client = cluster.client();
    }

    @AfterEach
    void stop() throws Exception {
        cluster.close();
    }

    private void chainReachesTheRealS2() {
        for (int i = 0; i < 5; i++) {
            ChainResult r = client.runChain(ChainCall.along(S1_THEN_S2, "x" + i));
            assertEquals("real s2 got x" + i, r.value());
            assertEquals(List.of("s1", "s2"), r.path());
        }
    }

    @Test
    void aRawPeerClaimingToBeS2GetsNoneOfItsHops() throws Exception {
        InetSocketAddress a1 = cluster.names.resolve("s1").orElseThrow();
        try (ServerSocket trap = new ServerSocket(0, 5, InetAddress.getLoopbackAddress());
             RawPeer impostor = new RawPeer(new Socket(a1.getAddress(), a1.getPort()))) {
            impostor.hello("s2", "127.0.0.1", trap.getLocalPort()); // before s1 ever talked to the real s2
            assertEquals("HELLO", impostor.nextFrame(5000));
            chainReachesTheRealS2();
            assertNull(impostor.nextFrame(300), "the impostor received a frame meant for s2");
            trap.setSoTimeout(100);
            assertThrows(SocketTimeoutException.class, trap::accept, "s1 dialled the impostor's advertised address");
        }
        chainReachesTheRealS2();
    }

    @Test
    void aClientNamedS2GetsNoneOfItsHopsNorResults() {
        RpccClient impostor = cluster.client(b -> b.name("s2"));
        // The impostor's own call to s1 opens a connection that says HELLO s2 ...
        impostor.startChain(ChainCall.to("s1", "echo").params("from the impostor"));
        // ... yet hops for s2 and results go where s1's resolver says s2 is.
        chainReachesTheRealS2();
        RpccClient other = cluster.client();
        assertEquals("ok", other.call("s1", "echo", "ok").join().value());
    }

    @Test
    void aNameMovedToAnotherAddressIsNoLongerSentToTheOldOne() throws Exception {
        chainReachesTheRealS2(); // s1 now has a connection to the first s2
        RpccServer second = RpccServer.builder("s2").resolver(cluster.names)
                .service("who", p -> "new s2 got " + p).build().start();
        try {
            cluster.names.register("s2", second.address());
            ChainResult r = client.runChain(ChainCall.along(S1_THEN_S2, "y"));
            assertEquals("new s2 got y", r.value());
        } finally {
            second.close();
        }
    }
}
