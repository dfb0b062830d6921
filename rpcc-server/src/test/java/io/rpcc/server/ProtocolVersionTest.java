package io.rpcc.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.rpcc.client.RpccClient;
import io.rpcc.core.ChainErrorCode;
import io.rpcc.core.ChainException;
import io.rpcc.core.ChainState;
import io.rpcc.core.HopUnreachableException;
import io.rpcc.core.ProtocolVersionException;
import io.rpcc.core.Refusal;
import io.rpcc.core.internal.wire.ChainResultFrame;
import io.rpcc.core.internal.wire.FrameType;
import io.rpcc.core.internal.wire.Hello;
import io.rpcc.core.internal.wire.VersionRange;
import io.rpcc.core.testing.RawPeer;
import java.io.DataInputStream;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.util.List;
import java.util.concurrent.CompletionException;
import java.util.function.Function;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Version negotiation in the HELLO: nodes agree on the highest version both speak; a peer without a
 * common version is refused (counted at the refusing node, which answers with its own versions) and
 * the originator of a chain that needed it gets a {@link ProtocolVersionException} naming both.
 */
class ProtocolVersionTest {
    /** The version this build speaks. */
    static final int V = FrameType.PROTOCOL_VERSION;

    static Cluster cluster;
    static RpccServer s1;
    static RpccClient client;

    @BeforeAll
    static void start() {
        cluster = new Cluster();
        s1 = cluster.server("s1", b -> b.service("echo", p -> p));
        client = cluster.client();
    }

    @AfterAll
    static void stop() throws Exception {
        cluster.close();
    }

    @AfterEach
    void stillServes() {
        assertEquals("alive", client.call("s1", "echo", "alive").join().value());
    }

    @Test
    void aPeerWhoseRangeIncludesThisVersionIsAnsweredAndServed() throws Exception {
        try (RawPeer p = new RawPeer("wide", s1.address())) {
            p.hello(new VersionRange(1, V));
            Hello answer = assertInstanceOf(Hello.class, p.readFrame());
            assertEquals(VersionRange.SUPPORTED, answer.versions());
            assertEquals(V, answer.versions().agree(new VersionRange(1, V)), "the highest version both speak");
            p.send(RawPeer.bytes(p.request(5, "echo", "hi")));
            ChainResultFrame result = assertInstanceOf(ChainResultFrame.class, p.read());
            assertEquals("hi", result.value());
        }
    }

    @Test
    void aNewerPeerIsRefusedCountedAndToldThisNodesVersions() throws Exception {
        long before = s1.stats().refused(Refusal.PROTOCOL_VERSION);
        try (RawPeer p = new RawPeer("future", s1.address())) {
            p.hello(new VersionRange(V + 1, V + 2));
            Hello answer = assertInstanceOf(Hello.class, p.readFrame(), "the refusing node answers with its versions");
            assertEquals(new VersionRange(V, V), answer.versions());
            assertEquals("s1", answer.node());
            assertTrue(p.closedWithin(5000), "then closes the connection");
        }
        assertEquals(before + 1, s1.stats().refused(Refusal.PROTOCOL_VERSION));
    }

    @Test
    void aVersion2PeerIsRefusedAndCounted() throws Exception {
        long before = s1.stats().refused(Refusal.PROTOCOL_VERSION);
        try (RawPeer p = new RawPeer("old", s1.address())) {
            p.send(RawPeer.helloOfVersion2("old", "127.0.0.1", 1));
            assertTrue(p.closedWithin(5000), "closed");
        }
        assertEquals(before + 1, s1.stats().refused(Refusal.PROTOCOL_VERSION));
    }

    @Test
    void theOriginatorOfAChainToANewerNodeGetsATypedErrorNamingBothVersions() throws Exception {
        long before = client.stats().refused(Refusal.PROTOCOL_VERSION);
        try (FakeNode future = new FakeNode("future", in -> RawPeer.bytes(
                new Hello(new VersionRange(V + 1, V + 2), "future", "127.0.0.1", 1, RawPeer.MAX)))) {
            ProtocolVersionException e = fails(() -> client.call("future", "echo", "x").join());
            assertEquals(ChainErrorCode.PROTOCOL_VERSION, e.code());
            assertInstanceOf(HopUnreachableException.class, e, "handled like any unreachable hop");
            assertFalse(e.isRetryable(), "retrying does not help until a node is upgraded");
            assertEquals(client.name(), e.host());
            assertEquals(0, e.hop());
            assertTrue(e.remoteMessage().contains("'future' speaks rpcc protocol versions " + (V + 1) + " to " + (V + 2) + " and '"
                    + client.name() + "' speaks version " + V + ": no version in common; upgrade '" + client.name()
                    + "' to an rpcc build that speaks versions " + (V + 1) + " to " + (V + 2)), e.remoteMessage());
        }
        assertEquals(before + 1, client.stats().refused(Refusal.PROTOCOL_VERSION), "the originator refused it too");
    }

    @Test
    void aHopToAVersion2NodeFailsAtTheHopThatTriedNamingWhichNodeToUpgrade() throws Exception {
        try (FakeNode old = new FakeNode("old", in -> RawPeer.helloOfVersion2("old", "127.0.0.1", 1))) {
            ProtocolVersionException e = fails(() -> client.runChain("s1", "echo", "x", ChainErrorTest.GOTO,
                    ChainState.of("next", "old/echo")));
            assertEquals("s1", e.host(), "the node that tried to reach the old one");
            assertEquals(1, e.hop());
            assertEquals(List.of("s1"), e.path());
            assertTrue(e.remoteMessage().contains("'old' speaks rpcc protocol version 2 and 's1' speaks version " + V + ": "
                    + "no version in common; upgrade 'old' to an rpcc build that speaks version " + V), e.remoteMessage());
        }
    }

    private static ProtocolVersionException fails(Runnable chain) {
        Throwable t = assertThrows(Throwable.class, chain::run);
        while (t instanceof CompletionException && t.getCause() != null) {
            t = t.getCause();
        }
        ChainException e = assertInstanceOf(ChainException.class, t);
        return assertInstanceOf(ProtocolVersionException.class, e, e::toString);
    }

    /**
     * A node of another version, registered in the cluster's resolver as {@code name}: it reads the
     * HELLO of every connection and answers with {@code answer}'s bytes, then waits for the close.
     */
    private static final class FakeNode implements AutoCloseable {
        private final String name;
        private final ServerSocket socket;
        private final Thread acceptor;

        FakeNode(String name, Function<DataInputStream, byte[]> answer) throws IOException {
            this.name = name;
            this.socket = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
            cluster.names.register(name, new InetSocketAddress("127.0.0.1", socket.getLocalPort()));
            acceptor = Thread.ofVirtual().start(() -> {
                while (!socket.isClosed()) {
                    try (Socket s = socket.accept()) {
                        s.setSoTimeout(10_000);
                        DataInputStream in = new DataInputStream(s.getInputStream());
                        assertInstanceOf(Hello.class, RawPeer.readFrame(in));
                        s.getOutputStream().write(answer.apply(in));
                        s.getOutputStream().flush();
                        in.readAllBytes(); // until the node closes the connection
                    } catch (IOException e) {
                        // closed
                    }
                }
            });
        }

        @Override
        public void close() throws Exception {
            cluster.names.unregister(name);
            socket.close();
            acceptor.join(10_000);
        }
    }
}
