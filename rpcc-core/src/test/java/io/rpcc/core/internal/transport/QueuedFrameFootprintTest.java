package io.rpcc.core.internal.transport;

import static org.junit.jupiter.api.Assertions.assertTrue;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import io.netty.channel.Channel;
import io.netty.channel.ChannelOption;
import io.netty.util.ResourceLeakDetector;
import io.rpcc.core.TypeRegistry;
import io.rpcc.core.internal.wire.ChainSecret;
import io.rpcc.core.internal.wire.Credit;
import io.rpcc.core.internal.wire.Hello;
import io.rpcc.core.internal.wire.QuietFrame;
import io.rpcc.core.internal.wire.Serialization;
import io.rpcc.core.internal.wire.WireFormat;
import java.io.DataInputStream;
import java.io.OutputStream;
import java.lang.management.ManagementFactory;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import javax.management.ObjectName;
import org.junit.jupiter.api.Test;

/**
 * What a frame waiting to be written holds on the heap besides its bytes ({@link WriteBudget#FRAME_OVERHEAD}),
 * measured: a node's transport writes 20,000 small frames, from a thread that is not the connection's
 * event loop (as hops do), to a peer that answered its HELLO and reads nothing more, and a class
 * histogram of the live heap (what {@code jcmd <pid> GC.class_histogram} prints, taken in this JVM
 * through the HotSpot diagnostic MBean) before and after tells what the queued frames added, by
 * class. The Netty and transport objects that grew by one or more per queued frame (the buffer
 * object and its reference count, Netty's outbound-buffer entry, the write's promise, its listeners,
 * the caller's future) must fit in {@link WriteBudget#FRAME_OVERHEAD}. Netty's leak detector, which
 * the tests run at its most thorough level (a record and three stack traces per buffer) and
 * production samples, is off while it runs. Prints the classes that grew.
 */
class QueuedFrameFootprintTest {
    static final int FRAMES = 20_000;
    static final WireFormat WIRE = new WireFormat(new Serialization(TypeRegistry.empty()));

    /** The live heap by class: name to {instances, bytes}, after a full GC (as jcmd GC.class_histogram). */
    private static Map<String, long[]> histogram() throws Exception {
        String text = (String) ManagementFactory.getPlatformMBeanServer().invoke(
                new ObjectName("com.sun.management:type=DiagnosticCommand"), "gcClassHistogram",
                new Object[] {new String[0]}, new String[] {String[].class.getName()});
        Map<String, long[]> out = new HashMap<>();
        Matcher m = Pattern.compile("(?m)^\\s*\\d+:\\s+(\\d+)\\s+(\\d+)\\s+(\\S+)").matcher(text);
        while (m.find()) {
            out.merge(m.group(3), new long[] {Long.parseLong(m.group(1)), Long.parseLong(m.group(2))},
                    (a, b) -> new long[] {a[0] + b[0], a[1] + b[1]});
        }
        return out;
    }

    private static boolean isLeakDetection(String name) {
        return name.contains("Leak");
    }

    @Test
    void aQueuedSmallFrameHoldsNoMoreObjectsThanTheWriteBudgetCounts() throws Exception {
        WireLimits limits = new WireLimits(new WireLimits.InboundConnectionLimits(1024, 256, 64, 60),
                new WireLimits.ConnectionTimeouts(Duration.ofSeconds(10), Duration.ofMinutes(5), Duration.ofMinutes(2),
                        Duration.ofMinutes(5)), new WireLimits.BufferLimits(1L << 20, 1L << 30, 1L << 30, 1L << 29),
                new WireLimits.ValueLimits(255, 128), new WireLimits.OutboundConnectionLimits(1024, 64));
        NodeTransport.Config config = new NodeTransport.Config(new NodeTransport.LocalEndpoint("footprint",
                new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), "127.0.0.1"), 1 << 20, Duration.ofSeconds(5),
                null, limits, new ConnectionPolicy(Duration.ZERO, Duration.ofSeconds(5), Duration.ofMillis(100),
                Duration.ofSeconds(5)), new NodeTransport.NettyHooks(null,
                p -> p.channel().config().setOption(ChannelOption.SO_SNDBUF, 8 * 1024), false));
        NodeTransport transport = new NodeTransport(config, WIRE, new Refusals());
        List<Socket> accepted = new ArrayList<>();
        ResourceLeakDetector.Level leakDetection = ResourceLeakDetector.getLevel();
        ResourceLeakDetector.setLevel(ResourceLeakDetector.Level.DISABLED); // production samples 1 buffer in 128
        try (ServerSocket deaf = new ServerSocket()) {
            deaf.setReceiveBufferSize(4096); // (before it binds: what it does not read stays in the node)
            deaf.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0));
            transport.start(new DeafListener());
            Thread acceptor = Thread.ofPlatform().daemon().start(() -> {
                try {
                    Socket s = deaf.accept();
                    accepted.add(s);
                    DataInputStream in = new DataInputStream(s.getInputStream());
                    in.readFully(new byte[in.readInt()]); // the node's HELLO
                    OutputStream out = s.getOutputStream();
                    out.write(bytes(new Hello("deaf", "127.0.0.1", deaf.getLocalPort(), 1 << 20)));
                    out.flush(); // and then reads nothing
                } catch (Exception e) {
                    throw new IllegalStateException(e);
                }
            });
            Channel ch = transport.connect("deaf", new InetSocketAddress(InetAddress.getLoopbackAddress(),
                    deaf.getLocalPort())).get(10, TimeUnit.SECONDS);
            acceptor.join(10_000);
            // a first batch fills the socket buffers; then the histogram; then the frames that queue
            List<CompletableFuture<Void>> sent = new ArrayList<>();
            for (int i = 0; i < FRAMES; i++) {
                sent.add(transport.send(ch, new QuietFrame(i + 1, ChainSecret.random(), Credit.ONE)));
            }
            awaitSteady(transport);
            long heldBefore = transport.stats().queued().now();
            Map<String, long[]> before = histogram();
            for (int i = 0; i < FRAMES; i++) {
                sent.add(transport.send(ch, new QuietFrame(FRAMES + i + 1, ChainSecret.random(), Credit.ONE)));
            }
            awaitSteady(transport);
            long held = transport.stats().queued().now() - heldBefore;
            Map<String, long[]> after = histogram();
            long frameBytes = bytes(new QuietFrame(1, ChainSecret.random(), Credit.ONE)).length;
            long[] entries = after.getOrDefault("io.netty.channel.ChannelOutboundBuffer$Entry", new long[2]);
            long frames = entries[0] - before.getOrDefault("io.netty.channel.ChannelOutboundBuffer$Entry", new long[2])[0];
            long transportBytes = 0;
            StringBuilder table = new StringBuilder();
            for (Map.Entry<String, long[]> e : after.entrySet()) {
                long[] was = before.getOrDefault(e.getKey(), new long[2]);
                long instances = e.getValue()[0] - was[0];
                long bytes = e.getValue()[1] - was[1];
                if (instances < frames / 2 || bytes <= 0) {
                    continue; // (not one or more per frame)
                }
                boolean counted = !isLeakDetection(e.getKey());
                if (counted) {
                    transportBytes += bytes;
                }
                table.append(String.format("  %-75s %,9d instances %,11d bytes %6.1f a frame%s%n", e.getKey(), instances,
                        bytes, (double) bytes / frames, counted ? "" : " (leak detection: not counted)"));
            }
            System.out.printf("%,d frames of about %d bytes queued (Netty's entries; rpcc's count: %,d bytes held, %,d "
                    + "frames); classes that grew by at least one instance per two frames:%n%s", frames, frameBytes, held,
                    held / (frameBytes + WriteBudget.FRAME_OVERHEAD), table);
            System.out.printf("per queued frame: %.1f bytes of objects (FRAME_OVERHEAD: %d)%n",
                    (double) transportBytes / frames, WriteBudget.FRAME_OVERHEAD);
            assertTrue(frames >= FRAMES * 9L / 10, "only " + frames + " frames queued");
            assertTrue(transportBytes / frames <= WriteBudget.FRAME_OVERHEAD, "a queued frame holds "
                    + transportBytes / frames + " bytes of objects, over the " + WriteBudget.FRAME_OVERHEAD
                    + " the write budget counts");
            ch.close().sync();
        } finally {
            ResourceLeakDetector.setLevel(leakDetection);
            for (Socket s : accepted) {
                s.close();
            }
            transport.close();
        }
    }

    /** Until what the transport holds to write has not changed for half a second (at most 30 s). */
    private static void awaitSteady(NodeTransport transport) throws InterruptedException {
        long held = -1;
        for (int i = 0, same = 0; i < 300 && same < 5; i++) {
            Thread.sleep(100);
            long now = transport.stats().queued().now();
            same = now == held ? same + 1 : 0;
            held = now;
        }
    }

    private static byte[] bytes(Object message) {
        ByteBuf buf = WIRE.encode(message, 1 << 20);
        try {
            return ByteBufUtil.getBytes(buf);
        } finally {
            buf.release();
        }
    }
}
