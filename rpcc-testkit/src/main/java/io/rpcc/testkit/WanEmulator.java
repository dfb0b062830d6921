package io.rpcc.testkit;

import io.netty.bootstrap.Bootstrap;
import io.netty.bootstrap.ServerBootstrap;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
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
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import org.jspecify.annotations.Nullable;

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
 *
 * <h2>Faults</h2>
 *
 * Tests inject faults per link direction, at any time and from any thread; each has a
 * both-directions form ({@code cutBoth}, {@code stallBoth}, {@code healBoth}, {@code resetBoth}):
 *
 * <ul>
 *   <li>{@link #cut}: a partition as TCP sees it. Bytes sent across the cut direction, and those
 *       already on the link, are held back (a connection stops being read once it holds a window's
 *       worth, so its sender blocks as it would on an unacknowledged window); nothing arrives and
 *       nothing fails, a peer looks silent. A connection closed meanwhile closes at the far end only
 *       after the heal, like its FIN. A new connection whose proxy uses the cut direction either way
 *       does not establish: the proxy accepts it locally but neither connects to the target nor reads
 *       it until both directions are healed, then it proceeds (as a retransmitted SYN would).
 *   <li>{@link #stall}: the direction stops carrying bytes, as with a cut, but new connections
 *       establish; their bytes are held too.
 *   <li>{@link #heal}: ends a cut or a stall. What was held crosses in order: what was on the link
 *       arrives one latency after the heal, what waited goes onto the link at its bandwidth from
 *       the heal on, as TCP retransmissions would.
 *   <li>{@link #reset}: closes every connection opened from one site to the other, both of its
 *       sides, with a TCP RST ({@code SO_LINGER} 0); what it held is dropped.
 *   <li>{@link #dropMidFrame}: the next read of at least two bytes crossing the direction is cut
 *       short: only its first half crosses, then both sides of that connection are closed
 *       (FIN), so the receiver reads a partial frame, then the end of the stream.
 * </ul>
 *
 * <pre>{@code
 * wan.cut(WanTopology.REDMOND, WanTopology.BEIJING);        // requests vanish; replies still come back
 * wan.heal(WanTopology.REDMOND, WanTopology.BEIJING);       // held bytes cross, in order
 * wan.stallBoth(WanTopology.REDMOND, WanTopology.BEIJING);  // connections open, nothing moves
 * wan.bytesHeld(WanTopology.REDMOND, WanTopology.BEIJING);  // what a cut or stall holds back
 * wan.healAll();
 * wan.reset(WanTopology.REDMOND, WanTopology.BEIJING);      // RST both sides of Redmond's connections
 * wan.dropMidFrame(WanTopology.BEIJING, WanTopology.REDMOND); // the next reply is torn
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
        /** Bytes read but not yet delivered (waiting or on the link). */
        final AtomicLong queued = new AtomicLong();
        final AtomicLong resets = new AtomicLong();
        final AtomicLong midFrameDrops = new AtomicLong();
        final AtomicBoolean dropArmed = new AtomicBoolean();
        /** The connections opened across this direction (by proxies from its first site to its second). */
        final Set<Connection> opened = ConcurrentHashMap.newKeySet();
        /**
         * Nothing arrives before this time: {@link #HELD} while the direction is cut or stalled, one
         * latency after the heal once healed (what was on the link is retransmitted), else
         * {@link #NO_HOLD}.
         */
        volatile long holdUntil = NO_HOLD;
        final int slice;
        final long latencyNanos;
        /** Bytes a connection may have in the pipe: its bandwidth-delay product, plus as much again queued. */
        final long window;
        final EventLoop loop; // where the link wakes up to send more
        // guarded by this:
        long freeAtNanos;
        final ArrayDeque<Relay> turns = new ArrayDeque<>(); // connections with bytes waiting, in turn
        boolean wakeScheduled;
        boolean cut;
        boolean stalled;
        /** New connections waiting for a cut to heal. */
        final List<Runnable> awaitingHeal = new ArrayList<>();

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
                if (cut || stalled) {
                    return; // the heal sends what waits
                }
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
                queued.addAndGet(-c.buf().readableBytes());
                c.buf().release();
            }
        }

        synchronized boolean nothingWaiting(Relay r) {
            return r.waiting.isEmpty();
        }

        /** Cuts ({@code cut}) or stalls the direction. */
        synchronized void hold(boolean asCut) {
            if (asCut) {
                cut = true;
            } else {
                stalled = true;
            }
            holdUntil = HELD;
        }

        /** Ends a cut or a stall: sends what waited, wakes the relays holding what was on the link, lets new connections proceed. */
        void heal() {
            long now = System.nanoTime();
            List<Runnable> proceed;
            synchronized (this) {
                if (!cut && !stalled) {
                    return;
                }
                cut = false;
                stalled = false;
                proceed = List.copyOf(awaitingHeal);
                awaitingHeal.clear();
                holdUntil = now + (delaying ? latencyNanos : 0);
                freeAtNanos = Math.max(freeAtNanos, now); // what waited goes onto the link from now
            }
            send(now);
            for (Relay r : relays) {
                if (r.link == this) {
                    runOn(r.out.eventLoop(), () -> r.schedulePump(System.nanoTime()));
                }
            }
            proceed.forEach(Runnable::run);
        }

        synchronized boolean isCut() {
            return cut;
        }

        synchronized boolean isStalled() {
            return stalled;
        }

        synchronized long held() {
            return cut || stalled ? queued.get() : 0;
        }

        /** If the direction is cut, keeps {@code proceed} for the heal and returns true. */
        synchronized boolean awaitHeal(Runnable proceed) {
            if (cut) {
                awaitingHeal.add(proceed);
            }
            return cut;
        }
    }

    /** Runs {@code task} on {@code loop}, unless the emulator is closed (then its connections are too). */
    private static void runOn(EventLoop loop, Runnable task) {
        try {
            loop.execute(task);
        } catch (RejectedExecutionException e) {
            // closed
        }
    }

    /** {@link LinkState#holdUntil} while a direction is cut or stalled. */
    private static final long HELD = Long.MAX_VALUE;
    /** {@link LinkState#holdUntil} of a direction never cut nor stalled. */
    private static final long NO_HOLD = Long.MIN_VALUE;

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

    /**
     * Forgets the byte counts and the fault counters ({@link #connectionsReset},
     * {@link #midFrameDrops}), between measurements.
     */
    public void resetCounters() {
        links.values().forEach(s -> {
            s.bytes.set(0);
            s.resets.set(0);
            s.midFrameDrops.set(0);
        });
    }

    /**
     * Cuts the direction from {@code fromSite} to {@code toSite}: a partition as TCP sees it, until
     * {@link #heal}. Bytes crossing it are held back, in order, and delivered after the heal; new
     * connections through a proxy that uses this direction (either way) are accepted locally but
     * not connected to their target until every direction they use is healed, then they proceed.
     * Idempotent.
     */
    public void cut(String fromSite, String toSite) {
        state(fromSite, toSite).hold(true);
    }

    /** {@link #cut}s both directions between {@code a} and {@code b}. */
    public void cutBoth(String a, String b) {
        cut(a, b);
        cut(b, a);
    }

    /**
     * Stalls the direction from {@code fromSite} to {@code toSite} until {@link #heal}: it stops
     * carrying bytes, which are held back as with a {@link #cut}, but new connections still
     * establish (their bytes are held too). Idempotent.
     */
    public void stall(String fromSite, String toSite) {
        state(fromSite, toSite).hold(false);
    }

    /** {@link #stall}s both directions between {@code a} and {@code b}. */
    public void stallBoth(String a, String b) {
        stall(a, b);
        stall(b, a);
    }

    /**
     * Ends a {@link #cut} or a {@link #stall} of the direction from {@code fromSite} to
     * {@code toSite}. What it held crosses in order, as TCP would retransmit it: what was on the
     * link arrives one latency after the heal, what waited goes onto the link at its bandwidth.
     * Connections waiting for the heal connect to their target. A no-op on a healthy direction.
     */
    public void heal(String fromSite, String toSite) {
        state(fromSite, toSite).heal();
    }

    /** {@link #heal}s both directions between {@code a} and {@code b}. */
    public void healBoth(String a, String b) {
        heal(a, b);
        heal(b, a);
    }

    /** {@link #heal}s every direction. */
    public void healAll() {
        links.values().forEach(LinkState::heal);
    }

    /** Whether the direction from {@code fromSite} to {@code toSite} is {@link #cut}. */
    public boolean isCut(String fromSite, String toSite) {
        return state(fromSite, toSite).isCut();
    }

    /** Whether the direction from {@code fromSite} to {@code toSite} is {@link #stall}ed. */
    public boolean isStalled(String fromSite, String toSite) {
        return state(fromSite, toSite).isStalled();
    }

    /**
     * Bytes the direction from {@code fromSite} to {@code toSite} holds back because it is cut or
     * stalled (read from their senders, not delivered); 0 while it carries bytes.
     */
    public long bytesHeld(String fromSite, String toSite) {
        return state(fromSite, toSite).held();
    }

    /**
     * Resets every connection opened from a node in {@code fromSite} to one in {@code toSite}
     * (through {@link #proxy proxy(fromSite, toSite, ...)}), established or waiting for a heal: both
     * of its sides are closed with a TCP RST ({@code SO_LINGER} 0), and what the emulator held for
     * it is dropped. Returns how many connections it resets (the closes themselves happen on the
     * proxies' event loops, at once but after this returns).
     */
    public int reset(String fromSite, String toSite) {
        LinkState s = state(fromSite, toSite);
        int n = 0;
        for (Connection c : s.opened) {
            if (s.opened.remove(c)) {
                n++;
                s.resets.incrementAndGet();
                runOn(c.front.eventLoop(), c::reset);
            }
        }
        return n;
    }

    /** {@link #reset}s the connections opened either way between {@code a} and {@code b}; returns how many. */
    public int resetBoth(String a, String b) {
        return reset(a, b) + (a.equals(b) ? 0 : reset(b, a));
    }

    /** Connections {@link #reset} so far that were opened from {@code fromSite} to {@code toSite}. */
    public long connectionsReset(String fromSite, String toSite) {
        return state(fromSite, toSite).resets.get();
    }

    /**
     * Arms the direction from {@code fromSite} to {@code toSite}: the next read of at least two
     * bytes that crosses it, on any connection, is cut short. Only its first half (rounded down)
     * crosses, and once it has arrived both sides of that connection are closed (FIN, so the
     * receiver reads the partial frame before the end of the stream); the sender's later bytes are
     * dropped. Arming an armed direction changes nothing; {@link #midFrameDrops} counts the drops.
     */
    public void dropMidFrame(String fromSite, String toSite) {
        state(fromSite, toSite).dropArmed.set(true);
    }

    /** Reads cut short by {@link #dropMidFrame} so far on the direction from {@code fromSite} to {@code toSite}. */
    public long midFrameDrops(String fromSite, String toSite) {
        return state(fromSite, toSite).midFrameDrops.get();
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

    /**
     * A proxied connection: its front (accepted from the node that connects) and back (to the
     * target) sides, and their relays once connected. Touched on the front's event loop only.
     */
    private final class Connection {
        final Channel front;
        @Nullable Channel back;
        @Nullable Relay forwardRelay;
        @Nullable Relay backwardRelay;
        boolean reset;

        Connection(Channel front) {
            this.front = front;
        }

        /** Closes both sides with an RST and drops what the relays hold; on the front's event loop. */
        void reset() {
            reset = true;
            for (Channel ch : new Channel[] {front, back}) {
                if (ch != null) {
                    try {
                        ch.config().setOption(ChannelOption.SO_LINGER, 0);
                    } catch (RuntimeException e) {
                        // closed already: a plain close then
                    }
                    ch.close();
                }
            }
            for (Relay r : new Relay[] {forwardRelay, backwardRelay}) {
                if (r != null) {
                    r.abort();
                }
            }
        }
    }

    /**
     * Accepts a connection, opens the one to the target (once no cut is in the way), then relays
     * both ways through the link. What the front reads before that (epoll reads a peer's last bytes
     * when it half-closes, even with auto-read off) is kept and handed to the relay: once the target
     * accepted, the connection is established and its bytes and close must cross. A front closed
     * before then is a connection given up: what it sent is dropped.
     */
    private final class FrontHandler extends ChannelInboundHandlerAdapter {
        private final LinkState forward;
        private final LinkState backward;
        private final InetSocketAddress target;
        private final List<ByteBuf> early = new ArrayList<>();
        private boolean connecting;

        FrontHandler(LinkState forward, LinkState backward, InetSocketAddress target) {
            this.forward = forward;
            this.backward = backward;
            this.target = target;
        }

        @Override
        public void channelActive(ChannelHandlerContext ctx) {
            Connection c = new Connection(ctx.channel());
            forward.opened.add(c);
            c.front.closeFuture().addListener(f -> forward.opened.remove(c));
            connect(c);
        }

        @Override
        public void channelRead(ChannelHandlerContext ctx, Object msg) {
            if (msg instanceof ByteBuf buf) {
                early.add(buf);
            } else {
                ReferenceCountUtil.release(msg);
            }
        }

        @Override
        public void channelInactive(ChannelHandlerContext ctx) {
            if (!connecting) {
                releaseEarly();
            }
        }

        private void releaseEarly() {
            early.forEach(ByteBuf::release);
            early.clear();
        }

        /** Connects to the target, unless a direction the connection needs is cut: then again after its heal. */
        private void connect(Connection c) {
            Channel front = c.front;
            if (c.reset || !front.isActive()) {
                return;
            }
            Runnable again = () -> runOn(front.eventLoop(), () -> connect(c));
            if (forward.awaitHeal(again) || backward.awaitHeal(again)) {
                return;
            }
            Bootstrap b = new Bootstrap()
                    .group(front.eventLoop())
                    .channel(clientChannel())
                    .option(ChannelOption.TCP_NODELAY, true)
                    .option(ChannelOption.AUTO_READ, false)
                    .handler(new ChannelInboundHandlerAdapter());
            connecting = true;
            b.connect(target).addListener((ChannelFutureListener) f -> {
                connecting = false;
                if (!f.isSuccess() || c.reset) {
                    releaseEarly();
                    front.close();
                    if (f.isSuccess()) {
                        f.channel().close();
                    }
                    return;
                }
                Channel back = f.channel();
                connections.add(back);
                c.back = back;
                Relay forwardRelay = new Relay(back, forward);
                c.forwardRelay = forwardRelay;
                c.backwardRelay = new Relay(front, backward);
                back.pipeline().addLast("relay", c.backwardRelay);
                back.config().setAutoRead(true);
                for (ByteBuf buf : early) {
                    forwardRelay.read(front, buf);
                }
                early.clear();
                if (front.isActive()) {
                    front.pipeline().replace(this, "relay", forwardRelay);
                    front.config().setAutoRead(true);
                } else {
                    forwardRelay.inputClosed();
                }
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


        final Channel out;
        final LinkState link;
        /** Slices read (and when) but not yet on the link; guarded by {@code link}. */
        final ArrayDeque<Chunk> waiting = new ArrayDeque<>();
        /** Slices on the link, and when they arrive, in order. */
        final Queue<Chunk> arriving = new ConcurrentLinkedQueue<>();
        private @Nullable Channel in;
        private long inFlight;
        /** Written on the relay's event loop only; read by the link from other loops. */
        private volatile boolean pumpScheduled;
        private boolean inClosed;
        /** A {@link #dropMidFrame} cut this side's read short: close the connection once the rest has arrived. */
        private boolean dropping;
        /** Done: the far side is closed (or closing), or the connection was reset. */
        private boolean finished;

        Relay(Channel out, LinkState link) {
            this.out = out;
            this.link = link;
            relays.add(this);
        }

        /** Nothing left to deliver, and the link would deliver a close now (no cut, stall or retransmission ahead). */
        private boolean idle(long now) {
            return arriving.isEmpty() && link.nothingWaiting(this) && link.holdUntil <= now;
        }

        @Override
        public void channelRead(ChannelHandlerContext ctx, Object msg) {
            read(ctx.channel(), msg);
        }

        /** Carries what {@code from} read across the link. */
        void read(Channel from, Object msg) {
            if (!(msg instanceof ByteBuf buf) || dropping || finished) {
                ReferenceCountUtil.release(msg);
                return;
            }
            Channel in = from;
            this.in = in;
            int size = buf.readableBytes();
            if (size >= 2 && link.dropArmed.get() && link.dropArmed.compareAndSet(true, false)) {
                ByteBuf prefix = buf.readRetainedSlice(size / 2);
                buf.release();
                buf = prefix;
                size = prefix.readableBytes();
                dropping = true;
                in.config().setAutoRead(false);
                link.midFrameDrops.incrementAndGet();
            }
            link.bytes.addAndGet(size);
            link.queued.addAndGet(size);
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

        /** Schedules a pump for the next slice due, or for the close that a hold delays; none while the link holds. */
        void schedulePump(long now) {
            if (pumpScheduled || finished) {
                return;
            }
            long hold = link.holdUntil;
            if (hold == HELD) {
                return; // the heal wakes the relay
            }
            Chunk next = arriving.peek();
            long due;
            if (next != null) {
                due = Math.max(next.at(), hold);
            } else if ((inClosed || dropping) && hold > now) {
                due = hold;
            } else {
                return;
            }
            pumpScheduled = true;
            out.eventLoop().schedule(this::pump, Math.max(0, due - now - WAKE_AHEAD_NANOS), TimeUnit.NANOSECONDS);
        }

        private void pump() {
            pumpScheduled = false;
            long hold = link.holdUntil;
            if (finished || hold == HELD) {
                return;
            }
            Chunk next = arriving.peek();
            long due = next == null ? hold : Math.max(next.at(), hold);
            long now = System.nanoTime();
            while (now < due && due - now <= WAKE_AHEAD_NANOS) { // woke up ahead of time: wait out the rest
                Thread.yield();
                now = System.nanoTime();
            }
            boolean wrote = false;
            while ((next = arriving.peek()) != null && Math.max(next.at(), hold) <= now + SLACK_NANOS) {
                arriving.poll();
                int n = next.buf().readableBytes();
                inFlight -= n;
                link.queued.addAndGet(-n);
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
            if (in != null && !dropping && !in.config().isAutoRead() && inFlight <= link.window / 2) {
                in.config().setAutoRead(true);
            }
            finishIfDone(now);
            schedulePump(now);
        }

        /**
         * Once everything sent before the close (or before a {@link #dropMidFrame}) has arrived,
         * closes the far side after its last write; a dropped connection's near side too.
         */
        private void finishIfDone(long now) {
            if (finished || !(inClosed || dropping) || !idle(now)) {
                return;
            }
            finished = true;
            relays.remove(this);
            out.writeAndFlush(Unpooled.EMPTY_BUFFER).addListener(ChannelFutureListener.CLOSE);
            if (dropping && in != null) {
                in.close();
            }
        }

        @Override
        public void channelInactive(ChannelHandlerContext ctx) {
            inputClosed();
        }

        /** The near side closed: close the far side once what it sent has crossed. */
        void inputClosed() {
            inClosed = true;
            long now = System.nanoTime();
            finishIfDone(now);
            schedulePump(now); // a retransmission after a heal may be all that delays the close
        }

        /** Drops what is still queued (the connection was reset, or the emulator is stopping); runs on the relay's event loop. */
        void abort() {
            finished = true;
            relays.remove(this);
            link.drop(this);
            Chunk c;
            while ((c = arriving.poll()) != null) {
                link.queued.addAndGet(-c.buf().readableBytes());
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
            drained.add(r.out.eventLoop().submit(r::abort));
        }
        drained.forEach(f -> f.awaitUninterruptibly(5, TimeUnit.SECONDS));
        group.shutdownGracefully(0, 1, TimeUnit.SECONDS).syncUninterruptibly();
    }
}
