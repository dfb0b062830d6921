package io.rpcc.testkit;

import io.netty.bootstrap.Bootstrap;
import io.netty.bootstrap.ServerBootstrap;
import io.netty.buffer.ByteBuf;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.nio.NioIoHandler;
import io.netty.channel.ServerChannel;
import io.netty.channel.epoll.Epoll;
import io.netty.channel.epoll.EpollIoHandler;
import io.netty.channel.epoll.EpollServerSocketChannel;
import io.netty.channel.epoll.EpollSocketChannel;
import io.netty.channel.socket.SocketChannel;
import io.netty.channel.socket.nio.NioServerSocketChannel;
import io.netty.channel.socket.nio.NioSocketChannel;
import io.netty.util.ReferenceCountUtil;
import io.netty.util.concurrent.DefaultThreadFactory;
import java.net.InetSocketAddress;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A wide-area network in user space, in the spirit of Toxiproxy: TCP proxies on loopback that
 * delay and rate-limit the bytes crossing an emulated link, so that any TCP protocol (rpcc's or
 * another framework's) can run between emulated sites. The kernel's netem is not needed.
 *
 * <p>Each link direction is modeled as a pipe: a chunk of {@code n} bytes starts when the link is
 * free, takes {@code n / bandwidth} to go onto it (the bandwidth is shared by every connection on
 * the link, first come first served), and arrives one latency later. Chunks are at most about
 * 250 µs of the link's bandwidth (a TCP segment at least), so a message's first bytes do not wait
 * for the rest of what was read with them. A connection that has more than a bandwidth-delay
 * product in flight stops being read, so senders feel the link as they would feel TCP.
 *
 * <pre>{@code
 * try (WanEmulator wan = new WanEmulator(WanTopology.paperFigure7())) {
 *     InetSocketAddress viaWan = wan.proxy(WanTopology.REDMOND, WanTopology.BEIJING, realServerAddress);
 *     // connect to viaWan from "Redmond" to reach the server "in Beijing"
 *     wan.bytesCarried(WanTopology.REDMOND, WanTopology.BEIJING);
 * }
 * }</pre>
 */
public final class WanEmulator implements AutoCloseable {
    private final WanTopology topology;
    private final EventLoopGroup group;
    private final Map<String, InetSocketAddress> proxies = new ConcurrentHashMap<>();
    private final Map<String, LinkState> links = new ConcurrentHashMap<>();
    private final List<Channel> servers = new ArrayList<>();
    private final java.util.Set<Relay> relays = ConcurrentHashMap.newKeySet();
    private final io.netty.channel.group.ChannelGroup connections =
            new io.netty.channel.group.DefaultChannelGroup(io.netty.util.concurrent.GlobalEventExecutor.INSTANCE);
    private volatile boolean delaying = true;

    /** The state of one direction of one link, shared by all its connections. */
    private static final class LinkState {
        final WanTopology.Link link;
        final AtomicLong bytes = new AtomicLong();
        long freeAtNanos; // guarded by this

        LinkState(WanTopology.Link link) {
            this.link = link;
        }

        /** When a chunk of {@code size} bytes sent now arrives at the far end. */
        synchronized long arrival(long now, int size) {
            long start = Math.max(now, freeAtNanos);
            freeAtNanos = start + link.transmissionNanos(size);
            return freeAtNanos + link.latency().toNanos();
        }
    }

    /**
     * Whether the proxies use epoll. Its timers (timerfd) fire within microseconds of their
     * deadline; NIO's {@code select} rounds a timeout up to the next millisecond, which would add
     * up to 1 ms to every message crossing a link.
     */
    private static final boolean EPOLL = Epoll.isAvailable();

    /** An emulator of {@code topology}, with event loops of its own. */
    public WanEmulator(WanTopology topology) {
        this.topology = topology;
        this.group = new MultiThreadIoEventLoopGroup(2, new DefaultThreadFactory("rpcc-wan", true),
                EPOLL ? EpollIoHandler.newFactory() : NioIoHandler.newFactory());
    }

    private static Class<? extends ServerChannel> serverChannel() {
        return EPOLL ? EpollServerSocketChannel.class : NioServerSocketChannel.class;
    }

    private static Class<? extends Channel> clientChannel() {
        return EPOLL ? EpollSocketChannel.class : NioSocketChannel.class;
    }

    /** The topology. */
    public WanTopology topology() {
        return topology;
    }

    /**
     * The address at which a node in {@code fromSite} reaches {@code target}, which is in
     * {@code toSite}: a proxy carrying the traffic over the emulated link (both directions).
     */
    public InetSocketAddress proxy(String fromSite, String toSite, InetSocketAddress target) {
        topology.link(fromSite, toSite); // fail fast on unknown sites
        return proxies.computeIfAbsent(fromSite + "\u0000" + toSite + "\u0000" + target,
                k -> start(state(fromSite, toSite), state(toSite, fromSite), target));
    }

    private LinkState state(String from, String to) {
        return links.computeIfAbsent(from + " → " + to, k -> new LinkState(topology.link(from, to)));
    }

    /** Bytes carried so far from {@code fromSite} to {@code toSite}. */
    public long bytesCarried(String fromSite, String toSite) {
        LinkState s = links.get(fromSite + " → " + toSite);
        return s == null ? 0 : s.bytes.get();
    }

    /** Bytes carried per link direction ({@code "A → B"}), for reports. */
    public Map<String, Long> bytesPerLink() {
        Map<String, Long> out = new TreeMap<>();
        links.forEach((k, v) -> out.put(k, v.bytes.get()));
        return out;
    }

    /**
     * Turns the links' latency and bandwidth on (the default) or off. With them off, the proxies
     * relay bytes as soon as they read them, still counting them. Use it to warm a JVM up before
     * measuring: a path's code is compiled by the JIT after thousands of runs, which take seconds
     * on loopback but many minutes across emulated wide-area links, and until then a cold path
     * costs milliseconds per hop more than a warm one.
     *
     * <pre>{@code
     * wan.setDelaying(false);
     * for (int i = 0; i < 10_000; i++) client.call("far-away", "ping", "x").join();
     * wan.setDelaying(true);
     * // measure
     * }</pre>
     */
    public void setDelaying(boolean on) {
        delaying = on;
    }

    /** Whether the links impose their latency and bandwidth (see {@link #setDelaying}). */
    public boolean isDelaying() {
        return delaying;
    }

    /** Forgets the byte counts (between measurements). */
    public void resetCounters() {
        links.values().forEach(s -> s.bytes.set(0));
    }

    private InetSocketAddress start(LinkState forward, LinkState backward, InetSocketAddress target) {
        ServerBootstrap b = new ServerBootstrap()
                .group(group)
                .channel(serverChannel())
                .childOption(ChannelOption.TCP_NODELAY, true)
                .childOption(ChannelOption.AUTO_READ, false)
                .childHandler(new ChannelInitializer<SocketChannel>() {
                    @Override
                    protected void initChannel(SocketChannel front) {
                        connections.add(front);
                        front.pipeline().addLast(new FrontHandler(forward, backward, target));
                    }
                });
        Channel server = b.bind(new InetSocketAddress("127.0.0.1", 0)).syncUninterruptibly().channel();
        synchronized (servers) {
            servers.add(server);
        }
        return (InetSocketAddress) server.localAddress();
    }

    /** Accepts a connection, opens the one to the target, then relays both ways through the link. */
    private final class FrontHandler extends ChannelInboundHandlerAdapter {
        private final LinkState forward;
        private final LinkState backward;
        private final InetSocketAddress target;

        FrontHandler(LinkState forward, LinkState backward, InetSocketAddress target) {
            this.forward = forward;
            this.backward = backward;
            this.target = target;
        }

        @Override
        public void channelActive(ChannelHandlerContext ctx) {
            Channel front = ctx.channel();
            Bootstrap b = new Bootstrap()
                    .group(front.eventLoop())
                    .channel(clientChannel())
                    .option(ChannelOption.TCP_NODELAY, true)
                    .option(ChannelOption.AUTO_READ, false)
                    .handler(new ChannelInboundHandlerAdapter());
            b.connect(target).addListener((ChannelFutureListener) f -> {
                if (!f.isSuccess()) {
                    front.close();
                    return;
                }
                Channel back = f.channel();
                connections.add(back);
                front.pipeline().replace(this, "relay", new Relay(back, forward));
                back.pipeline().addLast("relay", new Relay(front, backward));
                front.config().setAutoRead(true);
                back.config().setAutoRead(true);
            });
        }
    }

    /**
     * Carries what one side reads to the other side, one link latency and transmission time later.
     * Both sides of a proxied connection live on the same event loop, so a relay needs no locks.
     */
    private final class Relay extends ChannelInboundHandlerAdapter {
        /** Deliver chunks due within this much of now together. */
        private static final long SLACK_NANOS = TimeUnit.MICROSECONDS.toNanos(50);
        /**
         * Timers fire late: an idle (virtual) CPU takes a few hundred microseconds to wake up, which
         * would add to every message's latency. The relay asks to be woken this much early and
         * waits out the rest yielding its vCPU, so that the nodes it serves are not starved while
         * a link streams (slices 250 µs apart would keep a spinning relay busy all the time).
         */
        private static final long WAKE_AHEAD_NANOS = TimeUnit.MICROSECONDS.toNanos(400);

        private record Chunk(long arrival, ByteBuf buf) {
        }

        private final Channel out;
        private final LinkState link;
        private final ArrayDeque<Chunk> queue = new ArrayDeque<>();
        private Channel in;
        private long inFlight;
        private boolean pumpScheduled;
        private boolean inClosed;

        Relay(Channel out, LinkState link) {
            this.out = out;
            this.link = link;
            relays.add(this);
        }

        /** The most bytes that cross the link as one piece: about 250 µs of its bandwidth, at least a TCP segment. */
        private int sliceBytes() {
            return (int) Math.max(1460, link.link.bytesPerSecond() / 4000);
        }

        /** Bytes a connection may have in the pipe: its bandwidth-delay product, plus as much again queued. */
        private long window() {
            long rtt = 2 * link.link.latency().toNanos();
            return 2 * Math.max(256 * 1024, (long) (link.link.bytesPerSecond() * (rtt / 1e9)));
        }

        @Override
        public void channelRead(ChannelHandlerContext ctx, Object msg) {
            if (!(msg instanceof ByteBuf buf)) {
                ReferenceCountUtil.release(msg);
                return;
            }
            in = ctx.channel();
            int size = buf.readableBytes();
            link.bytes.addAndGet(size);
            if (!delaying && queue.isEmpty()) { // nothing to keep order with: straight through
                if (out.isActive()) {
                    out.writeAndFlush(buf, out.voidPromise());
                } else {
                    buf.release();
                }
                return;
            }
            long now = System.nanoTime();
            if (!delaying) {
                queue.add(new Chunk(now, buf));
                inFlight += size;
                schedulePump(now);
                return;
            }
            // A read can hold tens of kilobytes; its first bytes must not wait for its last, as
            // with TCP's segments, so it crosses the link in slices, each arriving on its own.
            int slice = sliceBytes();
            while (buf.readableBytes() > slice) {
                ByteBuf part = buf.readRetainedSlice(slice);
                queue.add(new Chunk(link.arrival(now, slice), part));
            }
            queue.add(new Chunk(link.arrival(now, buf.readableBytes()), buf));
            inFlight += size;
            if (inFlight > window()) {
                in.config().setAutoRead(false);
            }
            schedulePump(now);
        }

        private void schedulePump(long now) {
            if (pumpScheduled || queue.isEmpty()) {
                return;
            }
            pumpScheduled = true;
            out.eventLoop().schedule(this::pump, Math.max(0, queue.peek().arrival() - now - WAKE_AHEAD_NANOS),
                    TimeUnit.NANOSECONDS);
        }

        private void pump() {
            pumpScheduled = false;
            long due = queue.isEmpty() ? 0 : queue.peek().arrival();
            long now = System.nanoTime();
            while (now < due && due - now <= WAKE_AHEAD_NANOS) { // woke up ahead of time: wait out the rest
                Thread.yield();
                now = System.nanoTime();
            }
            boolean wrote = false;
            while (!queue.isEmpty() && queue.peek().arrival() <= now + SLACK_NANOS) {
                Chunk c = queue.poll();
                inFlight -= c.buf().readableBytes();
                if (out.isActive()) {
                    out.write(c.buf());
                    wrote = true;
                } else {
                    c.buf().release();
                }
            }
            if (wrote) {
                out.flush();
            }
            if (in != null && !in.config().isAutoRead() && inFlight <= window() / 2) {
                in.config().setAutoRead(true);
            }
            if (queue.isEmpty() && inClosed) {
                out.close(); // everything sent before the close has arrived
                relays.remove(this);
            }
            schedulePump(now);
        }

        @Override
        public void channelInactive(ChannelHandlerContext ctx) {
            inClosed = true;
            if (queue.isEmpty()) {
                out.close();
                relays.remove(this);
            }
        }

        /** Drops what is still queued (the emulator is stopping); runs on the relay's event loop. */
        void releaseAll() {
            Chunk c;
            while ((c = queue.poll()) != null) {
                c.buf().release();
            }
        }

        @Override
        public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
            ctx.close();
        }
    }

    /** Stops every proxy. */
    @Override
    public void close() {
        synchronized (servers) {
            for (Channel s : servers) {
                s.close().syncUninterruptibly();
            }
            servers.clear();
        }
        connections.close().awaitUninterruptibly(5, TimeUnit.SECONDS);
        List<io.netty.util.concurrent.Future<?>> drained = new ArrayList<>();
        for (Relay r : relays) {
            drained.add(r.out.eventLoop().submit(r::releaseAll));
        }
        drained.forEach(f -> f.awaitUninterruptibly(5, TimeUnit.SECONDS));
        group.shutdownGracefully(0, 1, TimeUnit.SECONDS).syncUninterruptibly();
    }
}
