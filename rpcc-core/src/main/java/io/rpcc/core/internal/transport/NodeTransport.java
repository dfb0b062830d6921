package io.rpcc.core.internal.transport;

import io.netty.bootstrap.Bootstrap;
import io.netty.bootstrap.ServerBootstrap;
import io.netty.buffer.ByteBuf;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelPipeline;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.SimpleChannelInboundHandler;
import io.netty.channel.group.ChannelGroup;
import io.netty.channel.group.DefaultChannelGroup;
import io.netty.channel.nio.NioIoHandler;
import io.netty.channel.socket.SocketChannel;
import io.netty.channel.socket.nio.NioServerSocketChannel;
import io.netty.channel.socket.nio.NioSocketChannel;
import io.netty.handler.codec.DecoderException;
import io.netty.handler.flush.FlushConsolidationHandler;
import io.netty.handler.ssl.SslHandler;
import io.netty.handler.ssl.SslHandshakeCompletionEvent;
import io.netty.handler.timeout.IdleStateEvent;
import io.netty.util.AttributeKey;
import io.netty.util.NetUtil;
import io.netty.util.concurrent.DefaultThreadFactory;
import io.netty.util.concurrent.GlobalEventExecutor;
import io.rpcc.core.ChainErrorCode;
import io.rpcc.core.NodeTls;
import io.rpcc.core.Refusal;
import io.rpcc.core.internal.lifecycle.SharedResource;
import io.rpcc.core.internal.wire.CancelFrame;
import io.rpcc.core.internal.wire.HeartbeatFrame;
import io.rpcc.core.internal.wire.ChainErrorFrame;
import io.rpcc.core.internal.wire.ChainRequest;
import io.rpcc.core.internal.wire.ChainResultFrame;
import io.rpcc.core.internal.wire.Hello;
import io.rpcc.core.internal.wire.HopFailure;
import io.rpcc.core.internal.wire.PingFrame;
import io.rpcc.core.internal.wire.QuietFrame;
import io.rpcc.core.internal.wire.ReplyFrame;
import io.rpcc.core.internal.wire.VersionRange;
import io.rpcc.core.internal.wire.WindowUpdateFrame;
import io.rpcc.core.internal.wire.WireFormat;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.security.cert.X509Certificate;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.BooleanSupplier;
import java.util.function.Consumer;
import javax.net.ssl.SSLException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A node's network endpoint: it listens, and keeps one multiplexed connection per peer node and
 * address, reused by every chain that sends to that peer. Every connection starts with a HELLO each
 * way, which names the node, where it listens and the largest frame it accepts; the sender never
 * writes a frame larger than the receiver accepts.
 *
 * <p>Who may receive what is sent to a name: a node sends to a name only over a connection it
 * opened itself to the address its resolver (or a chain's header) gives for that name, and whose
 * HELLO answered with that name; a connection a peer opened is used to send to it only when TLS
 * authenticated the peer's certificate for the name its HELLO claims ({@link NodeIdentity}). So a
 * peer that claims another node's name in its HELLO receives nothing meant for that node. With
 * TLS ({@link Config#tls()}), an {@link SslHandler} is the first handler of every connection.
 *
 * <p>Nothing here blocks an event loop: frames are encoded by the calling (worker) thread and
 * decoded frames are handed to an {@link InboundListener}, which must return at once.
 */
public final class NodeTransport implements AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(NodeTransport.class);
    private static final AttributeKey<Hello> PEER = AttributeKey.valueOf("rpcc.peer");
    private static final AttributeKey<WritabilityGate> GATE = AttributeKey.valueOf("rpcc.writability");
    private static final AttributeKey<PeerKey> KEY = AttributeKey.valueOf("rpcc.peerKey");
    private static final AttributeKey<Throwable> TLS_FAILURE = AttributeKey.valueOf("rpcc.tlsFailure");
    private static final AttributeKey<WriteStallWatch> STALL = AttributeKey.valueOf("rpcc.writeStall");
    private static final AttributeKey<ConnectionHealth> HEALTH = AttributeKey.valueOf("rpcc.health");
    private static final AttributeKey<RoundTripTime> RTT = AttributeKey.valueOf("rpcc.rtt");
    /**
     * A connection's round-trip estimate older than this is refreshed by a PING when a chain is sent
     * over it (one PING on its way at a time), so that it follows the load of a busy connection.
     */
    static final long RTT_REFRESH_NANOS = TimeUnit.MILLISECONDS.toNanos(100);
    /** At most this many frames written on a connection before a flush, however busy it is. */
    private static final int FLUSH_AFTER_FRAMES = 64;
    /**
     * The event loops of the nodes that were not given their own: one group for every such node of
     * the JVM, created when the first of them starts and shut down when the last of them closes.
     */
    private static final SharedResource<EventLoopGroup> SHARED_GROUP = new SharedResource<>("rpcc's shared event loops",
            () -> new MultiThreadIoEventLoopGroup(Math.max(2, Runtime.getRuntime().availableProcessors()),
                    new DefaultThreadFactory("rpcc-io", true), NioIoHandler.newFactory()),
            g -> g.shutdownGracefully(0, 2, TimeUnit.SECONDS));

    /**
     * How a node's transport is set up.
     *
     * @param endpoint the node's name and where it listens
     * @param maxFrameSize the largest frame this node sends or accepts, in bytes
     * @param connectTimeout how long to wait for a connection and its HELLO
     * @param tls the node's certificate and trusted CAs for mutual TLS, or {@code null} for plaintext
     * @param limits what peers may hold of this node
     * @param connections pings and reconnect backoff
     * @param netty the event loops and pipeline additions the user gives
     */
    public record Config(LocalEndpoint endpoint, int maxFrameSize, Duration connectTimeout, NodeTls tls,
                         WireLimits limits, ConnectionPolicy connections, NettyHooks netty) {

        /** The node's name. */
        public String nodeName() {
            return endpoint.nodeName();
        }

        /** The address to listen on. */
        public InetSocketAddress bind() {
            return endpoint.bind();
        }

        /** The host other nodes use to reach this one, or {@code null}. */
        public String advertisedHost() {
            return endpoint.advertisedHost();
        }

        /** The event loops, or {@code null} for the shared ones. */
        public EventLoopGroup group() {
            return netty.group();
        }

        /** What the user adds to every connection's pipeline. */
        public Consumer<ChannelPipeline> pipelineCustomizer() {
            return netty.pipelineCustomizer();
        }
    }

    /**
     * Who a node is and where it listens.
     *
     * @param nodeName the node's name
     * @param bind the address to listen on (port 0: any free port)
     * @param advertisedHost the host other nodes use to reach this one, or {@code null} for the
     *     bound address (the local host's address if bound to the wildcard address)
     */
    public record LocalEndpoint(String nodeName, InetSocketAddress bind, String advertisedHost) {
    }

    /**
     * What the user gives of Netty.
     *
     * @param group the event loops, or {@code null} for the group shared by the JVM's nodes (the
     *     caller's own group is never shut down by the transport)
     * @param pipelineCustomizer what the user adds to every connection's pipeline, after rpcc's handlers
     */
    public record NettyHooks(EventLoopGroup group, Consumer<ChannelPipeline> pipelineCustomizer) {
    }

    private final Config config;
    private final WireFormat wire;
    private volatile InboundListener listener;
    private volatile EventLoopGroup group;
    private final ConcurrentMap<PeerKey, CompletableFuture<Channel>> peers = new ConcurrentHashMap<>();
    private final TlsContexts tls;
    private final ChannelGroup channels = new DefaultChannelGroup("rpcc", GlobalEventExecutor.INSTANCE);
    private final Refusals refusals;
    private final AtomicLong framesReceived = new AtomicLong();
    private final AtomicLong partialFrameBytes = new AtomicLong();
    private final InboundConnections inbound;
    private final ReadPauses pauses;
    private final ReconnectBackoff backoff;
    private final AtomicLong pingsSent = new AtomicLong();
    private final RateLimitedWarnings warnings = new RateLimitedWarnings(log, TimeUnit.SECONDS.toNanos(10));
    private volatile Hello self;
    private volatile Channel serverChannel;
    private volatile boolean closed;

    /** A transport, not yet listening, counting what it refuses in {@code refusals}. */
    public NodeTransport(Config config, WireFormat wire, Refusals refusals) {
        this.config = config;
        this.wire = wire;
        this.refusals = refusals;
        this.tls = config.tls() == null ? null : TlsContexts.forNode(config.nodeName(), config.tls());
        this.inbound = new InboundConnections(config.limits());
        this.pauses = new ReadPauses(config.nodeName(), config.limits().pauseReadingAboveQueuedBytes());
        this.backoff = new ReconnectBackoff(config.nodeName(), config.connections());
    }

    /**
     * Starts listening (taking a hold on the shared event loops if the node has no group of its
     * own), handing the frames it decodes to {@code listener}; returns the bound address. Called once.
     */
    public InetSocketAddress start(InboundListener listener) {
        this.listener = listener;
        group = config.group() != null ? config.group() : SHARED_GROUP.acquire();
        ServerBootstrap b = new ServerBootstrap()
                .group(group)
                .channel(NioServerSocketChannel.class)
                .childOption(ChannelOption.TCP_NODELAY, true)
                .childHandler(new ChannelInitializer<SocketChannel>() {
                    @Override
                    protected void initChannel(SocketChannel ch) {
                        admit(ch);
                    }
                });
        Channel ch;
        try {
            ch = b.bind(config.bind()).syncUninterruptibly().channel();
        } catch (Exception e) { // Netty rethrows the bind's IOException (a BindException, say) unchecked
            close();
            throw new IllegalStateException("node '" + config.nodeName() + "' cannot listen on " + config.bind() + ": "
                    + e + (e instanceof java.net.BindException ? " (another process, or a connection, holds that "
                    + "port: choose another port, or 0 for any free one)" : ""), e);
        }
        serverChannel = ch;
        InetSocketAddress bound = (InetSocketAddress) ch.localAddress();
        String host = config.advertisedHost();
        if (host == null) {
            InetAddress addr = bound.getAddress();
            try {
                host = addr.isAnyLocalAddress() ? InetAddress.getLocalHost().getHostAddress() : addr.getHostAddress();
            } catch (IOException e) {
                host = "127.0.0.1";
            }
        }
        self = new Hello(config.nodeName(), host, bound.getPort(), config.maxFrameSize());
        return bound;
    }

    /** The node's name. */
    public String nodeName() {
        return config.nodeName();
    }

    /** The host other nodes use to reach this node. */
    public String advertisedHost() {
        return self.host();
    }

    /** The port this node listens on. */
    public int port() {
        return self.port();
    }

    /** The wire format. */
    public WireFormat wire() {
        return wire;
    }

    /** The node's refusal counters, which other parts of the node bump too. */
    public Refusals refusals() {
        return refusals;
    }

    /** Counters. */
    public TransportStats stats() {
        return new TransportStats(channels.size(), refusals.get(Refusal.MALFORMED_FRAME), framesReceived.get(),
                refusals.snapshot(), pingsSent.get());
    }

    /**
     * The connection to node {@code peer} at {@code address}: an open one (one this node opened to
     * that address, or, with TLS, one that {@code peer} opened and authenticated for that name), or
     * a new one. Fails with a {@link HopFailure} of {@link ChainErrorCode#HOP_UNREACHABLE} if the node
     * cannot be reached or another node answers at that address, or of
     * {@link ChainErrorCode#PEER_AUTHENTICATION} if TLS cannot authenticate it as {@code peer}. After the
     * second failed attempt in a row to that address, it fails at once until the reconnect backoff
     * has passed ({@link ReconnectBackoff}; the first failure is free: a restarted peer is reached by
     * the next try).
     */
    public CompletableFuture<Channel> connect(String peer, InetSocketAddress address) {
        PeerKey key = new PeerKey(peer, address);
        while (true) {
            CompletableFuture<Channel> existing = peers.get(key);
            if (existing != null && !(existing.isDone() && (existing.isCompletedExceptionally() || !existing.join().isActive()))) {
                return existing;
            }
            HopFailure heldBack = backoff.holdBack(key);
            if (heldBack != null) {
                return CompletableFuture.failedFuture(heldBack);
            }
            CompletableFuture<Channel> fresh = new CompletableFuture<>();
            boolean won = existing == null ? peers.putIfAbsent(key, fresh) == null : peers.replace(key, existing, fresh);
            if (won) {
                // the backoff knows of a failure before anyone waiting for the connection hears of it
                CompletableFuture<Channel> handshake = new CompletableFuture<>();
                handshake.whenComplete((ch, e) -> {
                    if (e != null) {
                        if (!closed) {
                            backoff.failed(key, e);
                        }
                        peers.remove(key, fresh);
                        fresh.completeExceptionally(e);
                    } else {
                        backoff.succeeded(key);
                        fresh.complete(ch);
                    }
                });
                open(key, handshake);
                return fresh;
            }
        }
    }

    private void open(PeerKey key, CompletableFuture<Channel> handshake) {
        String peer = key.node();
        InetSocketAddress address = key.address();
        EventLoopGroup loops = group;
        if (closed || loops == null) {
            handshake.completeExceptionally(new HopFailure(ChainErrorCode.HOP_UNREACHABLE, "node '" + config.nodeName()
                    + "' is " + (closed ? "closed" : "not started") + ": it cannot connect to '" + peer + "'"));
            return;
        }
        Bootstrap b = new Bootstrap()
                .group(loops)
                .channel(NioSocketChannel.class)
                .option(ChannelOption.TCP_NODELAY, true)
                .option(ChannelOption.CONNECT_TIMEOUT_MILLIS, (int) config.connectTimeout().toMillis())
                .handler(new ChannelInitializer<SocketChannel>() {
                    @Override
                    protected void initChannel(SocketChannel ch) {
                        setUp(ch, key, handshake);
                    }
                });
        b.connect(address).addListener((ChannelFutureListener) f -> {
            if (!f.isSuccess()) {
                handshake.completeExceptionally(new HopFailure(ChainErrorCode.HOP_UNREACHABLE, "cannot connect to '" + peer
                        + "' at " + address + ": " + describe(f.cause()), f.cause()));
                return;
            }
            Channel ch = f.channel();
            WriteQueue.writeAndFlush(ch, wire.encode(self, config.maxFrameSize(), ch.alloc()));
            roundTrip(ch).helloSent(System.nanoTime()); // (with TLS, again when its handshake is done: see below)
            var timeout = ch.eventLoop().schedule(() -> {
                if (handshake.completeExceptionally(new HopFailure(ChainErrorCode.HOP_UNREACHABLE, "node at " + address
                        + " (expected '" + peer + "') did not answer the " + (tls != null ? "TLS and " : "")
                        + "rpcc handshake within " + config.connectTimeout().toMillis() + " ms"
                        + (tls != null ? "; if it runs without TLS, turn TLS on there too (builder.tls(...))" : "")))) {
                    ch.close();
                }
            }, config.connectTimeout().toMillis(), TimeUnit.MILLISECONDS);
            handshake.whenComplete((c, e) -> timeout.cancel(false));
        });
    }

    private static SSLException tlsFailure(Throwable t) {
        for (Throwable c = t; c != null; c = c.getCause()) {
            if (c instanceof SSLException ssl) {
                return ssl;
            }
        }
        return null;
    }

    private static String describe(Throwable t) {
        String m = t.getMessage();
        return m == null ? t.getClass().getSimpleName() : m;
    }

    /**
     * Takes an inbound connection if the node's connection limits allow it (else closes it at
     * once), and closes it if it sends no HELLO within the handshake timeout.
     */
    private void admit(SocketChannel ch) {
        Refusal refused = inbound.admit(ch);
        if (refused != null) {
            refusals.count(refused);
            warnings.warn(ch.remoteAddress(), "node '{}' refused a connection from {}: {}", config.nodeName(),
                    ch.remoteAddress(), refused == Refusal.TOO_MANY_CONNECTIONS
                            ? "already " + config.limits().maxInboundConnections() + " inbound connections"
                            : "already " + config.limits().maxInboundConnectionsPerAddress()
                            + " inbound connections from that address");
            ch.close();
            return;
        }
        setUp(ch, null, null);
        long timeout = config.limits().handshakeTimeout().toNanos();
        var check = ch.eventLoop().schedule(() -> {
            if (ch.isActive() && ch.attr(PEER).get() == null) {
                refuse(ch, Refusal.HANDSHAKE_TIMEOUT, "no HELLO within " + config.limits().handshakeTimeout().toMillis()
                        + " ms", true);
            }
        }, timeout, TimeUnit.NANOSECONDS);
        ch.closeFuture().addListener(f -> check.cancel(false));
    }

    /**
     * Sets up a connection: inbound if {@code key} is {@code null}, else outbound to {@code key}, whose
     * {@code handshake} completes when the peer is known to be {@code key.node()}.
     */
    private void setUp(SocketChannel ch, PeerKey key, CompletableFuture<Channel> handshake) {
        channels.add(ch);
        if (closed) { // opened while the node closed: not kept
            ch.close();
        }
        if (tls != null) {
            ch.pipeline().addLast("tls", key == null ? tls.inbound(ch.alloc(), config.connectTimeout())
                    : tls.outbound(ch.alloc(), key.address(), config.connectTimeout()));
        }
        if (key != null) {
            ch.attr(KEY).set(key);
        }
        ch.attr(RTT).set(new RoundTripTime());
        ConnectionHealth health = new ConnectionHealth(config.connections(), config.limits().idleTimeout(),
                () -> ping(ch),
                () -> refuse(ch, Refusal.SILENT_PEER, "nothing read within " + config.connections().pingTimeout().toMillis()
                        + " ms of a PING (after " + config.connections().pingInterval().toMillis() + " ms of silence)", true),
                () -> refuse(ch, Refusal.IDLE_TIMEOUT, "no frame either way (other than PINGs) for "
                        + config.limits().idleTimeout().toMillis() + " ms", true));
        ch.attr(HEALTH).set(health);
        // one flush for the frames written in one turn of the event loop (while reading: at the end
        // of the read), not one system call per frame; a frame written when idle goes out at once
        ch.pipeline().addLast("flush", new FlushConsolidationHandler(FLUSH_AFTER_FRAMES, true));
        ch.pipeline().addLast("health", health);
        ch.pipeline().addLast("frames", new FrameDecoder(wire, config.maxFrameSize(), config.limits(), partialFrameBytes));
        ch.pipeline().addLast("rpcc", new FrameHandler(key == null ? null : key.node(), handshake));
        try {
            config.pipelineCustomizer().accept(ch.pipeline());
        } catch (RuntimeException e) {
            log.warn("node '{}': the pipeline customizer failed on {}; connection closed", config.nodeName(), ch, e);
            ch.close();
        }
    }

    /** Counts a refusal on {@code ch}, warns (rate-limited) and closes the connection if {@code close}. */
    private void refuse(Channel ch, Refusal kind, String reason, boolean close) {
        refusals.count(kind);
        Hello h = ch.attr(PEER).get();
        warnings.warn(ch.remoteAddress(), "node '{}' refused {} from {}: {}{}", config.nodeName(), kind,
                h != null ? "'" + h.node() + "' at " + ch.remoteAddress() : ch.remoteAddress(), reason,
                close ? "; connection closed" : "");
        if (close) {
            ch.close();
        }
    }

    /** Sends a PING on {@code ch} (on its event loop) if both HELLOs went; returns whether it did. */
    private boolean ping(Channel ch) {
        if (!measure(ch)) {
            return false;
        }
        pingsSent.incrementAndGet();
        return true;
    }

    /**
     * Sends a PING on {@code ch} if both HELLOs went, to measure the connection's round trip with its
     * answer; returns whether it did. Not counted as a health PING.
     */
    private boolean measure(Channel ch) {
        if (ch.attr(PEER).get() == null) {
            return false;
        }
        long now = System.nanoTime();
        roundTrip(ch).pingSent(now);
        WriteQueue.writeAndFlush(ch, wire.encode(new PingFrame(false, now), config.maxFrameSize(), ch.alloc()));
        return true;
    }

    private static RoundTripTime roundTrip(Channel ch) {
        RoundTripTime rtt = ch.attr(RTT).get();
        if (rtt == null) { // (set when the connection is set up; a channel of another origin has none)
            rtt = ch.attr(RTT).setIfAbsent(new RoundTripTime());
            return rtt != null ? rtt : ch.attr(RTT).get();
        }
        return rtt;
    }

    /** The round-trip estimate of connection {@code ch} (measured by its handshake and PINGs). */
    public RoundTripTime roundTripTime(Channel ch) {
        return roundTrip(ch);
    }

    /**
     * The estimated time one frame takes to cross connection {@code ch}
     * ({@link RoundTripTime#oneWayNanos()}), or -1 if it has no estimate yet. An estimate older than
     * {@link #RTT_REFRESH_NANOS} (or only the handshake's) is kept fresh: a PING goes out on the
     * connection to measure it again, unless one is on its way.
     */
    public long oneWayNanos(Channel ch) {
        RoundTripTime rtt = roundTrip(ch);
        long now = System.nanoTime();
        if (rtt.stale(now, RTT_REFRESH_NANOS) && rtt.mayMeasure(now) && ch.isActive()) {
            ch.eventLoop().execute(() -> measure(ch));
        }
        return rtt.oneWayNanos();
    }

    /**
     * Encodes {@code message} on the calling thread and writes it to {@code ch}. The future fails
     * with a {@link HopFailure}: for a value that cannot be serialized, a frame over the peer's
     * limit, or a connection that closed before the frame was written.
     */
    public CompletableFuture<Void> send(Channel ch, Object message) {
        ByteBuf frame;
        try {
            frame = encode(ch, message);
        } catch (HopFailure e) {
            return CompletableFuture.failedFuture(e);
        }
        return write(ch, frame);
    }

    /**
     * Encodes {@code message} on the calling thread for {@code ch}'s peer (whose frame limit it
     * respects), to {@link #write} later: a reply is encoded before it waits for room in its chain's
     * window, which its size counts against.
     *
     * @throws HopFailure for a value that cannot be serialized or a frame over the peer's limit
     */
    public ByteBuf encode(Channel ch, Object message) {
        Hello peer = ch.attr(PEER).get();
        int limit = peer == null ? config.maxFrameSize() : Math.min(config.maxFrameSize(), peer.maxFrameSize());
        return wire.encode(message, limit, ch.alloc());
    }

    /**
     * Writes an encoded {@code frame} to {@code ch} (and releases it); fails as {@link #send} does. A
     * connection whose peer does not read, so that more than the write-queue limit waits, is closed;
     * above the read-pause limit, the peer's requests are no longer read ({@link ReadPauses}).
     */
    public CompletableFuture<Void> write(Channel ch, ByteBuf frame) {
        Hello peer = ch.attr(PEER).get();
        long queued = WriteQueue.pending(ch);
        if (queued + frame.readableBytes() > config.limits().maxQueuedWriteBytes()) {
            frame.release();
            refuse(ch, Refusal.WRITE_QUEUE_FULL, queued + " bytes wait to be written and the peer does not read "
                    + "(limit: " + config.limits().maxQueuedWriteBytes() + " bytes)", true);
            return CompletableFuture.failedFuture(new HopFailure(ChainErrorCode.HOP_UNREACHABLE, "connection to '"
                    + (peer == null ? ch.remoteAddress() : peer.node()) + "' closed: " + queued + " bytes were "
                    + "waiting to be written to it and it did not read them"));
        }
        ConnectionHealth health = ch.attr(HEALTH).get();
        if (health != null) {
            health.used();
        }
        CompletableFuture<Void> written = new CompletableFuture<>();
        // flushed once for the frames written in the same turn of the event loop (the "flush" handler)
        WriteQueue.writeAndFlush(ch, frame).addListener((ChannelFutureListener) f -> {
            pauses.drained(ch);
            if (f.isSuccess()) {
                written.complete(null);
            } else {
                written.completeExceptionally(new HopFailure(ChainErrorCode.HOP_UNREACHABLE, "connection to '"
                        + (peer == null ? ch.remoteAddress() : peer.node()) + "' failed while sending: "
                        + describe(f.cause()), f.cause()));
            }
        });
        pauses.queued(ch);
        return written;
    }

    /**
     * Waits until {@code ch} can take more data (its outbound buffer is under Netty's high water
     * mark), at most {@code timeout}: the back-pressure that keeps a fast producer from filling
     * memory when the reader is slow. Must not be called on an event loop.
     *
     * @return whether the channel is writable (false: timed out or closed)
     */
    public boolean awaitWritable(Channel ch, Duration timeout) throws InterruptedException {
        return awaitWritable(ch, timeout, () -> false);
    }

    /**
     * {@link #awaitWritable(Channel, Duration)}, giving up (false) soon after {@code giveUp} becomes
     * true (within the 50 ms between two checks): a producer whose chain was cancelled stops waiting.
     */
    public boolean awaitWritable(Channel ch, Duration timeout, BooleanSupplier giveUp) throws InterruptedException {
        if (ch.isWritable()) {
            return true;
        }
        if (ch.eventLoop().inEventLoop()) {
            throw new IllegalStateException("cannot wait for a slow reader on an event loop");
        }
        WritabilityGate gate = ch.attr(GATE).setIfAbsent(new WritabilityGate());
        if (gate == null) {
            gate = ch.attr(GATE).get();
        }
        return gate.await(ch, timeout, giveUp);
    }

    /** {@link #connect} then {@link #send}. */
    public CompletableFuture<Void> send(String peer, InetSocketAddress address, Object message) {
        return connect(peer, address).thenCompose(ch -> send(ch, message));
    }

    /**
     * Stops listening, closes every connection and, for a node on the shared event loops, gives up
     * its hold on them (the last node to close shuts them down). A group the caller gave is left
     * running. Later sends fail at once. Idempotent.
     */
    @Override
    public void close() {
        EventLoopGroup loops;
        synchronized (this) {
            if (closed) {
                return;
            }
            closed = true;
            loops = group;
        }
        Channel s = serverChannel;
        if (s != null) {
            s.close().syncUninterruptibly();
        }
        channels.close().awaitUninterruptibly(5, TimeUnit.SECONDS);
        peers.clear();
        if (loops != null && config.group() == null) {
            SHARED_GROUP.release();
        }
    }

    private final class FrameHandler extends SimpleChannelInboundHandler<Object> {
        private final String expectedPeer;
        private final CompletableFuture<Channel> handshake;

        FrameHandler(String expectedPeer, CompletableFuture<Channel> handshake) {
            this.expectedPeer = expectedPeer;
            this.handshake = handshake;
        }

        @Override
        protected void channelRead0(ChannelHandlerContext ctx, Object msg) {
            if (msg instanceof PingFrame p) { // (about the connection, not counted as a frame received)
                if (!p.ack() && ctx.channel().attr(PEER).get() != null) {
                    WriteQueue.writeAndFlush(ctx.channel(), wire.encode(new PingFrame(true, p.payload()),
                            config.maxFrameSize(), ctx.alloc()));
                } else if (p.ack()) {
                    roundTrip(ctx.channel()).answered(p.payload(), System.nanoTime());
                }
                return;
            }
            framesReceived.incrementAndGet();
            ConnectionHealth health = ctx.channel().attr(HEALTH).get();
            if (health != null) {
                health.used();
            }
            if (!(msg instanceof Hello || msg instanceof FrameDecoder.Refused || msg instanceof FrameDecoder.VersionMismatch)
                    && (ctx.channel().attr(PEER).get() == null || !ctx.channel().isActive())) {
                // the HELLO before it was refused (TLS identity) and the connection is closing: frames
                // decoded from the same read must not run
                return;
            }
            switch (msg) {
                case ChainRequest r -> {
                    pauses.requestFrom(ctx.channel().attr(PEER).get().node(), ctx.channel());
                    listener.onRequest(r);
                }
                case ChainResultFrame r -> listener.onResult(r);
                case ChainErrorFrame e -> listener.onError(e);
                case ReplyFrame r -> listener.onReply(r, ctx.channel());
                case QuietFrame q -> listener.onQuiet(q);
                case CancelFrame c -> listener.onCancel(c);
                case HeartbeatFrame f -> listener.onHeartbeat(f);
                case WindowUpdateFrame w -> listener.onWindowUpdate(w, ctx.channel());
                case Hello h -> onHello(ctx.channel(), h);
                case FrameDecoder.MalformedFrame m -> onMalformed(ctx, m.reason());
                case FrameDecoder.VersionMismatch v -> onVersionMismatch(ctx.channel(), v);
                case FrameDecoder.Refused r -> refuse(ctx.channel(), r.kind(), r.reason(), r.closes());
                default -> throw new IllegalStateException("unexpected message " + msg.getClass());
            }
        }

        private void onHello(Channel ch, Hello h) {
            if (tls != null && !authenticatedAs(ch, h.node())) {
                return;
            }
            ch.attr(PEER).set(h);
            if (handshake == null) {
                if (tls != null) {
                    adopt(ch, h);
                }
                WriteQueue.writeAndFlush(ch, wire.encode(self, config.maxFrameSize(), ch.alloc()));
            } else if (!h.node().equals(expectedPeer)) {
                handshake.completeExceptionally(new HopFailure(ChainErrorCode.HOP_UNREACHABLE, "the node at "
                        + ch.remoteAddress() + " is '" + h.node() + "', not '" + expectedPeer
                        + "': check the name resolver"));
                ch.close();
            } else {
                pauses.sendingTo(h.node(), ch);
                // measured before the first chain goes out on the connection (which measures it again with a
                // PING, without the connection's set-up work in the way: see oneWayNanos)
                roundTrip(ch).helloAnswered(System.nanoTime());
                handshake.complete(ch);
            }
        }

        /**
         * The peer's HELLO shows no protocol version in common with this node's: counted and logged;
         * an inbound connection is answered with this node's HELLO (so that the peer learns this
         * node's versions and can say so) and closed; an outbound one fails its handshake with a
         * {@link ChainErrorCode#PROTOCOL_VERSION} failure naming both nodes' versions.
         */
        private void onVersionMismatch(Channel ch, FrameDecoder.VersionMismatch v) {
            refusals.count(Refusal.PROTOCOL_VERSION);
            String peer = v.peer() != null ? v.peer() : expectedPeer != null ? expectedPeer : "the node at " + ch.remoteAddress();
            String reason = VersionRange.SUPPORTED.mismatch(config.nodeName(), peer, v.versions());
            warnings.warn(ch.remoteAddress(), "node '{}' refused {} from {}: {}; connection closed", config.nodeName(),
                    Refusal.PROTOCOL_VERSION, ch.remoteAddress(), reason);
            if (handshake == null) {
                WriteQueue.writeAndFlush(ch, wire.encode(self, config.maxFrameSize(), ch.alloc()))
                        .addListener(ChannelFutureListener.CLOSE);
                return;
            }
            handshake.completeExceptionally(new HopFailure(ChainErrorCode.PROTOCOL_VERSION, "cannot reach '" + expectedPeer
                    + "' at " + ch.remoteAddress() + ": " + reason));
            ch.close();
        }

        /**
         * Whether the TLS peer of {@code ch} carries {@code claimed} in its certificate; if not, the
         * connection is refused (counted, logged, closed; an outbound handshake fails).
         */
        private boolean authenticatedAs(Channel ch, String claimed) {
            X509Certificate cert = TlsContexts.peerCertificate(ch);
            if (cert != null && NodeIdentity.carries(cert, claimed)) {
                return true;
            }
            refusals.count(Refusal.IMPERSONATION);
            String why = "the peer at " + ch.remoteAddress() + " claims to be '" + claimed + "' but its "
                    + (cert == null ? "certificate is unknown" : NodeIdentity.describe(cert)) + " does not carry that name";
            warnings.warn(ch.remoteAddress(), "node '{}' refused a connection: {}", config.nodeName(), why);
            if (handshake != null) {
                handshake.completeExceptionally(new HopFailure(ChainErrorCode.PEER_AUTHENTICATION, why
                        + ": check the name resolver, or give '" + claimed + "' a certificate with "
                        + NodeIdentity.howToName(claimed)));
            }
            ch.close();
            return false;
        }

        /**
         * Keeps an inbound connection whose peer TLS authenticated as {@code h.node()} for sending to
         * that node at the address it listens on. A peer that advertises a host name rather than an
         * address is not adopted (no name is resolved on an event loop): this node dials it instead.
         */
        private void adopt(Channel ch, Hello h) {
            InetAddress address = NetUtil.createInetAddressFromIpAddressString(h.host());
            if (address == null) {
                return;
            }
            PeerKey key = new PeerKey(h.node(), new InetSocketAddress(address, h.port()));
            if (peers.putIfAbsent(key, CompletableFuture.completedFuture(ch)) == null) {
                ch.attr(KEY).set(key);
                pauses.sendingTo(h.node(), ch);
                // chains may go out on it: its round trip is measured now (after the HELLO this node answers with)
                ch.eventLoop().execute(() -> measure(ch));
            }
        }

        @Override
        public void userEventTriggered(ChannelHandlerContext ctx, Object evt) throws Exception {
            if (evt instanceof IdleStateEvent) { // ConnectionHealth's, handled there
                return;
            }
            if (evt instanceof SslHandshakeCompletionEvent done) {
                Channel ch = ctx.channel();
                if (!done.isSuccess()) {
                    refusals.count(Refusal.TLS_HANDSHAKE);
                    String why = TlsContexts.explain(done.cause());
                    if (handshake != null) {
                        handshake.completeExceptionally(new HopFailure(ChainErrorCode.PEER_AUTHENTICATION, "TLS handshake "
                                + "with '" + expectedPeer + "' at " + ch.remoteAddress() + " failed: " + why, done.cause()));
                    } else {
                        warnings.warn(ch.remoteAddress(), "node '{}' refused a TLS connection from {}: {}",
                                config.nodeName(), ch.remoteAddress(), why);
                    }
                    ctx.close();
                } else if (handshake != null) {
                    roundTrip(ch).helloSent(System.nanoTime()); // the HELLO waited for the TLS handshake
                    X509Certificate cert = TlsContexts.peerCertificate(ch);
                    if (cert == null || !NodeIdentity.carries(cert, expectedPeer)) {
                        refusals.count(Refusal.IMPERSONATION);
                        handshake.completeExceptionally(new HopFailure(ChainErrorCode.PEER_AUTHENTICATION, "the node at "
                                + ch.remoteAddress() + " (the address of '" + expectedPeer + "') presented "
                                + (cert == null ? "no certificate" : "a " + NodeIdentity.describe(cert))
                                + " that does not carry the name '" + expectedPeer + "': check the name resolver, or "
                                + "give '" + expectedPeer + "' a certificate with " + NodeIdentity.howToName(expectedPeer)));
                        ctx.close();
                    }
                }
            }
            super.userEventTriggered(ctx, evt);
        }

        @Override
        public void channelWritabilityChanged(ChannelHandlerContext ctx) throws Exception {
            Channel ch = ctx.channel();
            WritabilityGate gate = ch.attr(GATE).get();
            if (gate != null) {
                gate.changed();
            }
            if (ch.isWritable()) {
                pauses.drained(ch);
            } else {
                WriteStallWatch watch = ch.attr(STALL).get();
                if (watch == null) {
                    watch = new WriteStallWatch(ch, config.limits().writeStallTimeout(), () -> refuse(ch,
                            Refusal.WRITE_STALLED, "it read none of the " + WriteQueue.pending(ch)
                            + " bytes waiting to be written to it for " + config.limits().writeStallTimeout().toMillis()
                            + " ms", true));
                    ch.attr(STALL).set(watch);
                }
                watch.start();
            }
            super.channelWritabilityChanged(ctx);
        }

        @Override
        public void channelInactive(ChannelHandlerContext ctx) throws Exception {
            Channel ch = ctx.channel();
            WritabilityGate gate = ch.attr(GATE).get();
            if (gate != null) {
                gate.changed();
            }
            PeerKey key = ch.attr(KEY).get();
            if (key != null) {
                CompletableFuture<Channel> f = peers.get(key);
                if (f != null && f.isDone() && !f.isCompletedExceptionally() && f.join() == ch) {
                    peers.remove(key, f);
                }
            }
            if (handshake != null) {
                Throwable tlsFailure = ch.attr(TLS_FAILURE).get();
                handshake.completeExceptionally(tlsFailure == null
                        ? new HopFailure(ChainErrorCode.HOP_UNREACHABLE, "connection to '" + expectedPeer + "' at "
                                + key.address() + " closed during the rpcc handshake: '" + expectedPeer + "' may be "
                                + "down or restarting behind a proxy" + (tls == null
                                ? "; if it runs TLS, this node needs TLS too (builder.tls(...))" : "")
                                + "; a node of rpcc protocol version 2 or older closes the connection like this too "
                                + "(then upgrade '" + expectedPeer + "')")
                        : new HopFailure(ChainErrorCode.PEER_AUTHENTICATION, "'" + expectedPeer + "' at " + key.address()
                                + " closed the connection during the TLS handshake: "
                                + TlsContexts.explain(tlsFailure), tlsFailure));
            }
            super.channelInactive(ctx);
        }

        private void onMalformed(ChannelHandlerContext ctx, Throwable reason) {
            refuse(ctx.channel(), Refusal.MALFORMED_FRAME, "a malformed frame: " + reason.getMessage(), false);
        }

        @Override
        public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
            SSLException tlsFailure = tlsFailure(cause);
            if (tlsFailure != null) { // counted (if refused here) by the handshake event
                ctx.channel().attr(TLS_FAILURE).set(tlsFailure);
                log.debug("node '{}': TLS failure on {}: {}", config.nodeName(), ctx.channel(), tlsFailure.toString());
                ctx.close();
                return;
            }
            if (cause instanceof DecoderException) { // a frame over the size limit (its bytes are skipped)
                onMalformed(ctx, cause.getCause() != null ? cause.getCause() : cause);
                return;
            }
            if (cause instanceof IOException) {
                log.debug("connection {} failed: {}", ctx.channel(), cause.toString());
            } else {
                log.warn("node '{}': unexpected error on {}", config.nodeName(), ctx.channel(), cause);
            }
            ctx.close();
        }
    }
}
