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
import io.netty.channel.EventLoop;
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
import java.util.Queue;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A wide-area network in user space, in the spirit of Toxiproxy: TCP proxies on loopback that
 * delay and rate-limit the bytes crossing an emulated link, so that any TCP protocol (rpcc's or
 * another framework's) can run between emulated sites. The kernel's netem is not needed.
 *
 * <p>Each link direction is modeled as a pipe: a slice of {@code n} bytes starts when the link is
 * free, takes {@code n / bandwidth} to go onto it, and arrives one latency later. The connections
 * crossing a link share its bandwidth fairly, as with a router's fair queuing (Linux's
 * {@code fq}): they take turns of one slice ({@link #sliceBytes}, about 250 µs of the link's
 * bandwidth), so a short message does not wait behind another connection's bulk transfer, and a
 * message's first bytes do not wait for the rest of what was read with them. Within a connection,
 * bytes keep their order. A connection that has more than a bandwidth-delay product in flight
 * stops being read, so senders feel the link as they would feel TCP.
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

    /**
     * One direction of one link, shared by every connection that crosses it. Like a router queue
     * with fair queuing (Linux's {@code fq}), it sends the connections' bytes in turns, a slice
     * each, so that a short message on one connection does not wait behind another connection's
     * bulk transfer; within a connection, bytes keep their order. Slices go onto the link one after
     * the other at its bandwidth, and arrive one latency after their last byte went on.
     */
    private final class LinkState {
        /** How far ahead of now slices are given their place on the link. */
        private static final long HORIZON_NANOS = TimeUnit.MICROSECONDS.toNanos(1000);

        final WanTopology.Link link;
        final AtomicLong bytes = new AtomicLong();
        final int slice;
        final long latencyNanos;
        /** Bytes a connection may have in the pipe: its bandwidth-delay product, plus as much again queued. */
        final long window;
        final EventLoop loop; // where the link wakes up to send more
        // guarded by this:
        long freeAtNanos;
        final ArrayDeque<Relay> turns = new ArrayDeque<>(); // connections with bytes waiting, in turn
        boolean wakeScheduled;

        LinkState(WanTopology.Link link, EventLoop loop) {
            this.link = link;
            this.slice = sliceBytes(link);
            this.latencyNanos = link.latency().toNanos();
            this.window = 2 * Math.max(256 * 1024, (long) (link.bytesPerSecond() * (2 * latencyNanos / 1e9)));
            this.loop = loop;
        }

        /** Queues bytes that connection {@code r} read, and sends what the link can take now. */
        void offer(Relay r, ByteBuf buf, long now) {
            synchronized (this) {
                if (r.waiting.isEmpty()) {
                    turns.add(r);
                }
                while (buf.readableBytes() > slice) {
                    r.waiting.add(new Chunk(now, buf.readRetainedSlice(slice)));
                }
                r.waiting.add(new Chunk(now, buf));
            }
            send(now);
        }

        /** Gives waiting slices their place on the link, a connection at a time, up to a horizon ahead. */
        void send(long now) {
            List<Relay> sentFor = new ArrayList<>(2);
            boolean delays = delaying;
            synchronized (this) {
                while (!turns.isEmpty() && freeAtNanos < now + HORIZON_NANOS) {
                    Relay r = turns.poll();
                    Chunk c = r.waiting.poll();
                    // from when it was read: a wake-up that came late must not leave the link idle
                    freeAtNanos = Math.max(c.at(), freeAtNanos) + (delays ? link.transmissionNanos(c.buf().readableBytes()) : 0);
                    r.arriving.add(new Chunk(freeAtNanos + (delays ? latencyNanos : 0), c.buf()));
                    if (!r.waiting.isEmpty()) {
                        turns.add(r);
                    }
                    if (!sentFor.contains(r)) {
                        sentFor.add(r);
                    }
                }
                if (!turns.isEmpty() && !wakeScheduled) {
                    wakeScheduled = true;
                    loop.schedule(this::wake, Math.max(0, freeAtNanos - HORIZON_NANOS * 3 / 4 - now), TimeUnit.NANOSECONDS);
                }
            }
            for (Relay r : sentFor) {
                r.arrivalsChanged();
            }
        }

        private void wake() {
            synchronized (this) {
                wakeScheduled = false;
            }
            send(System.nanoTime());
        }

        /** Forgets what connection {@code r} still had waiting (it is closing). */
        synchronized void drop(Relay r) {
            turns.remove(r);
            Chunk c;
            while ((c = r.waiting.poll()) != null) {
                c.buf().release();
            }
        }

        synchronized boolean nothingWaiting(Relay r) {
            return r.waiting.isEmpty();
        }
    }

    /** A slice of bytes and a time: when it was read, or when it arrives at the far end of its link. */
    private record Chunk(long at, ByteBuf buf) {
    }

    /**
     * How many bytes of one connection a link sends before it is another connection's turn: about
     * 250 µs of its bandwidth, and at least a TCP segment. A read of tens of kilobytes thus crosses
     * the link in slices, and its first bytes do not wait for its last.
     */
    public static int sliceBytes(WanTopology.Link link) {
        return (int) Math.max(1460, link.bytesPerSecond() / 4000);
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
        return links.computeIfAbsent(from + " → " + to, k -> new LinkState(topology.link(from, to), group.next()));
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
     * relay bytes as soon as they read them (through the same code, which the JIT thus compiles
     * too), still counting them. Use it to warm a JVM up before
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
     * Carries what one side of a proxied connection reads to the other side, across its link
     * ({@link LinkState}). Both sides live on the same event loop; the link may give slices their
     * place from another loop, hence the concurrent queue of arriving slices.
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


        private final Channel out;
        private final LinkState link;
        /** Slices read (and when) but not yet on the link; guarded by {@code link}. */
        final ArrayDeque<Chunk> waiting = new ArrayDeque<>();
        /** Slices on the link, and when they arrive, in order. */
        final Queue<Chunk> arriving = new ConcurrentLinkedQueue<>();
        private Channel in;
        private long inFlight;
        /** Written on the relay's event loop only; read by the link from other loops. */
        private volatile boolean pumpScheduled;
        private boolean inClosed;

        Relay(Channel out, LinkState link) {
            this.out = out;
            this.link = link;
            relays.add(this);
        }

        private boolean idle() {
            return arriving.isEmpty() && link.nothingWaiting(this);
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
            inFlight += size;
            if (inFlight > link.window) {
                in.config().setAutoRead(false);
            }
            link.offer(this, buf, System.nanoTime());
        }

        /** The link gave slices of this connection their place: make sure a pump will deliver them. */
        void arrivalsChanged() {
            if (out.eventLoop().inEventLoop()) {
                schedulePump(System.nanoTime());
            } else if (!pumpScheduled) { // a scheduled pump sees the new slices (the queue and the flag are volatile)
                out.eventLoop().execute(() -> schedulePump(System.nanoTime()));
            }
        }

        private void schedulePump(long now) {
            Chunk next = arriving.peek();
            if (pumpScheduled || next == null) {
                return;
            }
            pumpScheduled = true;
            out.eventLoop().schedule(this::pump, Math.max(0, next.at() - now - WAKE_AHEAD_NANOS), TimeUnit.NANOSECONDS);
        }

        private void pump() {
            pumpScheduled = false;
            Chunk next = arriving.peek();
            long due = next == null ? 0 : next.at();
            long now = System.nanoTime();
            while (now < due && due - now <= WAKE_AHEAD_NANOS) { // woke up ahead of time: wait out the rest
                Thread.yield();
                now = System.nanoTime();
            }
            boolean wrote = false;
            while ((next = arriving.peek()) != null && next.at() <= now + SLACK_NANOS) {
                arriving.poll();
                inFlight -= next.buf().readableBytes();
                if (out.isActive()) {
                    out.write(next.buf());
                    wrote = true;
                } else {
                    next.buf().release();
                }
            }
            if (wrote) {
                out.flush();
            }
            if (in != null && !in.config().isAutoRead() && inFlight <= link.window / 2) {
                in.config().setAutoRead(true);
            }
            if (inClosed && idle()) {
                out.close(); // everything sent before the close has arrived
                relays.remove(this);
            }
            schedulePump(now);
        }

        @Override
        public void channelInactive(ChannelHandlerContext ctx) {
            inClosed = true;
            if (idle()) {
                out.close();
                relays.remove(this);
            }
        }

        /** Drops what is still queued (the emulator is stopping); runs on the relay's event loop. */
        void releaseAll() {
            link.drop(this);
            Chunk c;
            while ((c = arriving.poll()) != null) {
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
