package io.rpcc.core.internal.transport;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import io.netty.channel.Channel;
import io.rpcc.core.TypeRegistry;
import io.rpcc.core.internal.wire.ChainKey;
import io.rpcc.core.internal.wire.ChainResultFrame;
import io.rpcc.core.internal.wire.ChainSecret;
import io.rpcc.core.internal.wire.Credit;
import io.rpcc.core.internal.wire.Hello;
import io.rpcc.core.internal.wire.HopFailure;
import io.rpcc.core.internal.wire.QuietFrame;
import io.rpcc.core.internal.wire.ReplyStream;
import io.rpcc.core.internal.wire.Serialization;
import io.rpcc.core.internal.wire.WindowUpdateFrame;
import io.rpcc.core.internal.wire.WireFormat;
import java.io.DataInputStream;
import java.io.InputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * {@link NodeTransport#sendTogether}, on a real connection to a peer that reads the socket itself:
 * the two frames, sent from a thread that is not the connection's event loop (as a hop's is), reach
 * the peer in one read, the first first; a first frame that cannot be encoded is reported and does
 * not keep the second from going.
 */
@Timeout(value = 1, unit = TimeUnit.MINUTES)
class SendTogetherTest {
    static final WireFormat WIRE = new WireFormat(new Serialization(TypeRegistry.empty()));
    /** The peer's frame limit (its HELLO): a frame over it is refused before it is written. */
    static final int PEER_LIMIT = 4096;

    NodeTransport transport;
    ServerSocket peer;
    Socket accepted;
    InputStream in;
    Channel ch;

    @BeforeEach
    void connect() throws Exception {
        WireLimits limits = new WireLimits(new WireLimits.InboundConnectionLimits(1024, 256, 64, 60),
                new WireLimits.ConnectionTimeouts(Duration.ofSeconds(10), Duration.ofMinutes(5), Duration.ofMinutes(2),
                        Duration.ofMinutes(5)), new WireLimits.BufferLimits(1L << 20, 1L << 30, 1L << 30, 1L << 29),
                new WireLimits.ValueLimits(255, 128), new WireLimits.OutboundConnectionLimits(1024, 64));
        NodeTransport.Config config = new NodeTransport.Config(new NodeTransport.LocalEndpoint("together",
                new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), "127.0.0.1"), 1 << 20, Duration.ofSeconds(5),
                null, limits, new ConnectionPolicy(Duration.ZERO, Duration.ofSeconds(5), Duration.ofMillis(100),
                Duration.ofSeconds(5)), new NodeTransport.NettyHooks(null, p -> { }, false));
        transport = new NodeTransport(config, WIRE, new Refusals());
        transport.start(new DeafListener());
        peer = new ServerSocket(0, 1, InetAddress.getLoopbackAddress());
        CompletableFuture<Socket> acceptedHello = CompletableFuture.supplyAsync(() -> {
            try {
                Socket s = peer.accept();
                DataInputStream hello = new DataInputStream(s.getInputStream());
                hello.readFully(new byte[hello.readInt()]); // the node's HELLO
                s.getOutputStream().write(bytes(new Hello("peer", "127.0.0.1", peer.getLocalPort(), PEER_LIMIT)));
                s.getOutputStream().flush();
                return s;
            } catch (Exception e) {
                throw new IllegalStateException(e);
            }
        });
        ch = transport.connect("peer", new InetSocketAddress(InetAddress.getLoopbackAddress(), peer.getLocalPort()))
                .get(10, TimeUnit.SECONDS);
        accepted = acceptedHello.get(10, TimeUnit.SECONDS);
        in = accepted.getInputStream();
        accepted.setSoTimeout(10_000);
    }

    @AfterEach
    void close() throws Exception {
        if (accepted != null) {
            accepted.close();
        }
        peer.close();
        transport.close();
    }

    static byte[] bytes(Object message) {
        ByteBuf buf = WIRE.encode(message, 1 << 20);
        try {
            return ByteBufUtil.getBytes(buf);
        } finally {
            buf.release();
        }
    }

    /** What the peer reads next: {@code n} bytes, and how many of them the first read returned. */
    byte[] read(int n, int[] firstRead) throws Exception {
        byte[] got = new byte[n];
        int at = 0;
        while (at < n) {
            int r = in.read(got, at, n - at);
            if (r < 0) {
                throw new IllegalStateException("the connection closed after " + at + " of " + n + " bytes");
            }
            if (at == 0) {
                firstRead[0] = r;
            }
            at += r;
        }
        return got;
    }

    static byte[] concat(byte[] a, byte[] b) {
        byte[] both = Arrays.copyOf(a, a.length + b.length);
        System.arraycopy(b, 0, both, a.length, b.length);
        return both;
    }

    @Test
    void twoFramesSentTogetherFromAnotherThreadArriveInOneReadInOrder() throws Exception {
        for (int i = 1; i <= 20; i++) {
            QuietFrame first = new QuietFrame(i, ChainSecret.random(), Credit.ONE);
            WindowUpdateFrame second = new WindowUpdateFrame(new ChainKey(i, ChainSecret.random()), new ReplyStream(1, "h"), false, 1, 64, 0);
            AtomicReference<Throwable> firstFailed = new AtomicReference<>();
            transport.sendTogether("peer", (InetSocketAddress) ch.remoteAddress(), first, second, firstFailed::set)
                    .get(10, TimeUnit.SECONDS);
            byte[] expected = concat(bytes(first), bytes(second));
            int[] firstRead = new int[1];
            assertArrayEquals(expected, read(expected.length, firstRead), "the first frame, then the second");
            assertEquals(expected.length, firstRead[0], "both frames in one read (written with one flush)");
            assertEquals(null, firstFailed.get());
        }
    }

    @Test
    void aFirstFrameThatCannotBeEncodedIsReportedAndTheSecondStillGoes() throws Exception {
        ChainResultFrame tooLarge = new ChainResultFrame(new ChainKey(1, ChainSecret.random()), List.of(), List.of(),
                List.of(), "x".repeat(2 * PEER_LIMIT), Credit.ONE, null);
        QuietFrame second = new QuietFrame(2, ChainSecret.random(), Credit.ONE);
        AtomicReference<Throwable> firstFailed = new AtomicReference<>();
        transport.sendTogether("peer", (InetSocketAddress) ch.remoteAddress(), tooLarge, second, firstFailed::set)
                .get(10, TimeUnit.SECONDS);
        byte[] expected = bytes(second);
        assertArrayEquals(expected, read(expected.length, new int[1]));
        assertInstanceOf(HopFailure.class, firstFailed.get(), "the first frame's failure was reported");
        assertTrue(firstFailed.get().getMessage() != null);
    }
}
