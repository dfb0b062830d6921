package io.rpcc.core.internal.transport;

import io.netty.bootstrap.ServerBootstrap;
import io.netty.buffer.ByteBuf;
import io.netty.channel.Channel;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.ChannelPipeline;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.socket.SocketChannel;
import io.netty.handler.ssl.SslHandler;
import io.netty.util.concurrent.DefaultThreadFactory;
import io.rpcc.core.ChainErrorCode;
import io.rpcc.core.NodeTls;
import io.rpcc.core.Refusal;
import io.rpcc.core.SocketTransport;
import io.rpcc.core.internal.lifecycle.SharedResource;
import io.rpcc.core.internal.wire.ChainRequest;
import io.rpcc.core.internal.wire.Hello;
import io.rpcc.core.internal.wire.HopFailure;
import io.rpcc.core.internal.wire.WireFormat;
import io.rpcc.core.spi.EngineSpi;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import java.util.function.Consumer;
import java.util.function.Function;
import java.util.function.Supplier;

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
 *
 * <p>This class owns the transport's parts, wired through their constructors, and its life cycle
 * (listening, closing, the event loops); the work is the parts'. In the order a connection meets
 * them: {@link InboundAcceptor} takes inbound connections and {@link PeerConnections} reuses or
 * dials ({@link Dialer}) the connection to a peer ({@link PeerTable}); {@link ConnectionPipeline}
 * sets each one up; {@link Handshakes} exchange HELLOs ({@link PeerAuthentication} with TLS);
 * {@link FrameWriter} writes frames, with back-pressure; {@link FrameHandler} hands what a
 * connection reads to {@link InboundFrames}; {@link RoundTrips} measures round trips with PINGs;
 * {@link ConnectionRefusals} counts and logs what is refused.
 */
@EngineSpi
public final class NodeTransport implements AutoCloseable {
    /** The peer of what this node makes itself (no connection): see {@link #peerOf}. */
    public static final String LOCAL_PEER = "local";
    /**
     * The event loops of the nodes that were not given their own and run on NIO: one group for every
     * such node of the JVM, created when the first of them starts and shut down when the last of
     * them closes.
     */
    private static final SharedResource<EventLoopGroup> SHARED_NIO_GROUP = sharedGroup("NIO", () -> SocketFamily.NIO);
    /** As {@link #SHARED_NIO_GROUP}, for the nodes that run on epoll. */
    private static final SharedResource<EventLoopGroup> SHARED_EPOLL_GROUP = sharedGroup("epoll", SocketFamily::epoll);

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
     * @param dialOnCallerLoop whether a connection opened from one of the event loops lives on that
     *     loop (a node whose executor is the user's: its hops may run on the loop that read them, and
     *     then send on without a hand-off to another loop); else the group's next loop takes it
     * @param transport the socket transport asked for ({@link TransportSelection}); with a group of
     *     the user's, its kind or {@link SocketTransport#AUTO}
     */
    public record NettyHooks(EventLoopGroup group, Consumer<ChannelPipeline> pipelineCustomizer,
                             boolean dialOnCallerLoop, SocketTransport transport) {

        /**
         * Hooks on NIO (as before a transport could be chosen), or on the kind of {@code group} if one
         * is given ({@link SocketTransport#AUTO} follows it).
         */
        public NettyHooks(EventLoopGroup group, Consumer<ChannelPipeline> pipelineCustomizer, boolean dialOnCallerLoop) {
            this(group, pipelineCustomizer, dialOnCallerLoop, group != null ? SocketTransport.AUTO : SocketTransport.NIO);
        }

        /** Checks the transport is given. */
        public NettyHooks {
            Objects.requireNonNull(transport, "transport");
        }
    }

    private final Config config;
    private final SocketFamily sockets;
    private final WireFormat wire;
    private final Refusals refusals;
    private final TransportLifecycle lifecycle = new TransportLifecycle();
    private final PeerTable table = new PeerTable();
    private final FrameWriter writer;
    private final RoundTrips roundTrips;
    private final Handshakes handshakes;
    private final InboundFrames frames;
    private final InboundAcceptor acceptor;
    private final PeerConnections connections;
    private final OutboundBounds outbound;
    private final ChainCredentials credentials;
    private final HopStreams streams;
    private volatile Channel serverChannel;

    /**
     * A transport, not yet listening, counting what it refuses in {@code refusals}.
     *
     * @throws IllegalStateException if the socket transport asked for cannot be had ({@link TransportSelection})
     */
    public NodeTransport(Config config, WireFormat wire, Refusals refusals) {
        this.config = config;
        this.sockets = TransportSelection.select(config.nodeName(), config.netty().transport(), config.group());
        this.wire = wire;
        this.refusals = refusals;
        TlsContexts tls = config.tls() == null ? null : TlsContexts.forNode(config.nodeName(), config.tls());
        ReadPauses pauses = new ReadPauses(config.nodeName(), config.limits().pauseReadingAboveQueuedBytes());
        ConnectionRefusals refused = new ConnectionRefusals(config.nodeName(), refusals);
        this.writer = new FrameWriter(config, wire, pauses, refused);
        this.roundTrips = new RoundTrips(writer);
        writer.probeLargeFramesWith(roundTrips);
        PeerAuthentication authentication = new PeerAuthentication(refused);
        this.handshakes = new Handshakes(config, authentication, refused, pauses, roundTrips, table, writer);
        this.streams = new HopStreams(config.nodeName(), config.limits().streams(), writer, refused);
        this.frames = new InboundFrames(pauses, roundTrips, handshakes, refused, streams);
        ConnectionPipeline pipeline = new ConnectionPipeline(config, wire, tls, lifecycle, roundTrips, refused,
                dial -> new FrameHandler(dial, frames, handshakes, authentication, writer, table));
        this.acceptor = new InboundAcceptor(config, refused, pipeline);
        this.outbound = new OutboundBounds(config.nodeName(), config.limits().outbound(), refused);
        this.connections = new PeerConnections(config, table, new Dialer(config, sockets, lifecycle, pipeline, handshakes),
                lifecycle, outbound);
        this.credentials = config.tls() == null ? null
                : new ChainCredentials(config.tls(), ChainCredentials.DEFAULT_CLOCK_SKEW);
    }

    /**
     * Signs the chains this node starts and checks those that reach it, with the node's TLS key and
     * trusted CAs; {@code null} in plaintext (no credentials possible).
     */
    public ChainCredentials credentials() {
        return credentials;
    }

    /**
     * Starts listening (taking a hold on the shared event loops if the node has no group of its
     * own), handing the frames it decodes to {@code listener}; returns the bound address. Called once.
     */
    public InetSocketAddress start(InboundListener listener) {
        frames.deliverTo(listener);
        EventLoopGroup group = config.group() != null ? config.group() : sharedGroup().acquire();
        lifecycle.started(group);
        ServerBootstrap b = new ServerBootstrap()
                .group(group)
                .channel(sockets.serverChannel())
                .childOption(ChannelOption.TCP_NODELAY, true)
                .childHandler(new ChannelInitializer<SocketChannel>() {
                    @Override
                    protected void initChannel(SocketChannel ch) {
                        acceptor.admit(ch);
                    }
                });
        Channel ch;
        try {
            ch = b.bind(config.bind()).syncUninterruptibly().channel();
        } catch (Exception e) { // Netty rethrows the bind's IOException (a BindException, say) unchecked
            close();
            Exception failure = bindFailure(e);
            throw new IllegalStateException("node '" + config.nodeName() + "' cannot listen on " + config.bind() + ": "
                    + failure + (failure instanceof java.net.BindException ? " (another process, or a connection, "
                    + "holds that port: choose another port, or 0 for any free one)" : ""), e);
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
        handshakes.listening(new Hello(config.nodeName(), host, bound.getPort(), config.maxFrameSize()));
        return bound;
    }

    /**
     * What a failed bind says, the same on both transports: NIO fails with a {@link java.net.BindException},
     * epoll with Netty's native {@code IOException} ("bind(..) failed: Address already in use"), here
     * turned into a {@code BindException} of that message.
     */
    private static Exception bindFailure(Exception e) {
        if (e instanceof io.netty.channel.unix.Errors.NativeIoException n && n.getMessage() != null
                && n.getMessage().startsWith("bind(")) {
            java.net.BindException b = new java.net.BindException(n.getMessage());
            b.initCause(n);
            return b;
        }
        return e;
    }

    /** The node's name. */
    public String nodeName() {
        return config.nodeName();
    }

    /** The socket transport the node runs on: {@link SocketTransport#EPOLL} or {@link SocketTransport#NIO}. */
    public SocketTransport socketTransport() {
        return sockets.kind();
    }

    /** The host other nodes use to reach this node. */
    public String advertisedHost() {
        return handshakes.self().host();
    }

    /** The port this node listens on. */
    public int port() {
        return handshakes.self().port();
    }

    /** The wire format. */
    public WireFormat wire() {
        return wire;
    }

    /** The node's refusal counters, which other parts of the node bump too. */
    public Refusals refusals() {
        return refusals;
    }

    /** The connections that closed so far, by cause; causes never seen are absent. */
    public java.util.Map<io.rpcc.core.Disconnect, Long> disconnects() {
        return lifecycle.disconnects();
    }

    /** Counters. */
    public TransportStats stats() {
        WriteBudget written = writer.budget();
        return new TransportStats(lifecycle.open(), refusals.get(Refusal.MALFORMED_FRAME), frames.received(),
                refusals.snapshot(), roundTrips.pingsSent(),
                new TransportStats.QueuedWrites(written.total(), written.peakTotal(), written.peakConnection()));
    }

    /**
     * The connection to node {@code peer} at {@code address}: an open one (one this node opened to
     * that address, or, with TLS, one that {@code peer} opened and authenticated for that name), or
     * a new one. Fails with a {@link HopFailure} of {@link ChainErrorCode#HOP_UNREACHABLE} if the node
     * cannot be reached or another node answers at that address, or of
     * {@link ChainErrorCode#PEER_AUTHENTICATION} if TLS cannot authenticate it as {@code peer}. After the
     * second failed attempt in a row to that address, it fails at once until the reconnect backoff
     * has passed ({@link ReconnectBackoff}; the first failure is free: a restarted peer is reached by
     * the next try). A new connection over the node's outbound bounds ({@link OutboundBounds}) is not
     * opened: the future fails at once with {@link ChainErrorCode#HOP_UNREACHABLE}.
     */
    public CompletableFuture<Channel> connect(String peer, InetSocketAddress address) {
        return connections.connect(peer, address);
    }

    /**
     * Who sent what arrives on connection {@code ch}, for the tables a node bounds per peer: with TLS,
     * {@code "node:"} and the node name its certificate authenticated (its HELLO's); in plaintext,
     * where a HELLO's name proves nothing, {@code "address:"} and the remote IP address (the port
     * left out: one host's connections are one peer). {@link #LOCAL_PEER} for what has no connection.
     */
    public String peerOf(Channel ch) {
        if (ch == null) {
            return LOCAL_PEER;
        }
        Hello hello = ConnectionAttributes.peer(ch);
        if (config.tls() != null && hello != null) {
            return "node:" + hello.node();
        }
        return ch.remoteAddress() instanceof InetSocketAddress a && a.getAddress() != null
                ? "address:" + a.getAddress().getHostAddress() : "address:" + ch.remoteAddress();
    }

    /**
     * Whether the peer of connection {@code ch} is authenticated: with TLS, its certificate was
     * verified for the node name its HELLO gives (every connection of a TLS node is, once its
     * HELLO arrived); in plaintext, never.
     */
    public boolean authenticated(Channel ch) {
        return ch != null && config.tls() != null && ConnectionAttributes.peer(ch) != null;
    }

    /** The node name the HELLO of connection {@code ch}'s peer gives, or {@code null} before it arrived. */
    public String peerName(Channel ch) {
        Hello hello = ch == null ? null : ConnectionAttributes.peer(ch);
        return hello == null ? null : hello.node();
    }

    /** Connections this node opened that are open now ({@link OutboundBounds}). */
    public int outboundConnections() {
        return outbound.open();
    }

    /** Connection attempts of this node under way now ({@link OutboundBounds}). */
    public int dialsInProgress() {
        return outbound.dialsInProgress();
    }

    /** Idle connections this node closed to make room for new ones ({@link OutboundBounds}). */
    public int reclaimedOutboundConnections() {
        return outbound.reclaimed();
    }

    /**
     * The node name the TLS certificate of the peer on connection {@code ch} authenticated (its
     * HELLO's), or {@code null}: no TLS, no connection, or no HELLO yet.
     */
    public String authenticatedPeer(Channel ch) {
        return authenticated(ch) ? peerName(ch) : null;
    }

    /** The round-trip estimate of connection {@code ch} (measured by its handshake and PINGs). */
    public RoundTripTime roundTripTime(Channel ch) {
        return RoundTrips.of(ch);
    }

    /**
     * The bytes per second this node gets through connection {@code ch} in the direction it sends,
     * measured by a PING that follows each large frame ({@link LinkThroughput}), or -1 before the
     * first sample.
     */
    public long bytesPerSecond(Channel ch) {
        return RoundTrips.throughputOf(ch).bytesPerSecond();
    }

    /**
     * The shortest recent round trip of connection {@code ch} ({@link RoundTripTime#minNanos()}), or
     * -1 before the first sample.
     */
    public long minRoundTripNanos(Channel ch) {
        return RoundTrips.of(ch).minNanos();
    }

    /**
     * The estimated time one frame takes to cross connection {@code ch}
     * ({@link RoundTripTime#oneWayNanos()}), or -1 if it has no estimate yet. An estimate older than
     * {@link RoundTrips#REFRESH_NANOS} (or only the handshake's) is kept fresh: a PING goes out on the
     * connection to measure it again, unless one is on its way.
     */
    public long oneWayNanos(Channel ch) {
        return roundTrips.oneWayNanos(ch);
    }

    /**
     * Whether a frame handed to {@code ch} now would be written: the connection is open and this
     * node has not started letting it go ({@link GracefulClose}: after its GOAWAY, a connection
     * stays open for up to a round trip, or the ping timeout, but refuses every frame). A caller
     * that prefers one connection (the one a frame came on) and can also send by name checks this,
     * not {@link Channel#isActive()}, before it picks that connection.
     */
    public boolean usable(Channel ch) {
        return ch.isActive() && !GracefulClose.goingAway(ch);
    }

    /**
     * Encodes {@code message} on the calling thread and writes it to {@code ch}. The future fails
     * with a {@link HopFailure}: for a value that cannot be serialized, a frame over the peer's
     * limit, or a connection that closed before the frame was written.
     */
    public CompletableFuture<Void> send(Channel ch, Object message) {
        if (message instanceof ChainRequest r && r.stream() instanceof OutboundStream s) {
            if (!streams.opening(ch, s)) {
                return CompletableFuture.failedFuture(HopStreams.sentBefore(r));
            }
            return writer.send(ch, message).whenComplete((v, e) -> {
                if (e == null) {
                    streams.pump(ch, s);
                } else {
                    streams.notSent(ch, s);
                }
            });
        }
        return writer.send(ch, message);
    }

    /** The data streams of this node's hops, both ways ({@link HopStreams}). */
    public HopStreams streams() {
        return streams;
    }

    /**
     * Encodes {@code message} on the calling thread for {@code ch}'s peer (whose frame limit it
     * respects), to {@link #write} later: a reply is encoded before it waits for room in its chain's
     * window, which its size counts against.
     *
     * @throws HopFailure for a value that cannot be serialized or a frame over the peer's limit
     */
    public ByteBuf encode(Channel ch, Object message) {
        return writer.encode(ch, message);
    }

    /**
     * Writes an encoded {@code frame} to {@code ch} (and releases it); fails as {@link #send} does. A
     * connection whose peer does not read, so that more than the write-queue limit waits, is closed;
     * above the read-pause limit, the peer's requests are no longer read ({@link ReadPauses}).
     */
    public CompletableFuture<Void> write(Channel ch, ByteBuf frame) {
        return writer.write(ch, frame);
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
        return writer.awaitWritable(ch, timeout, giveUp);
    }

    /**
     * {@link #connect} then {@link #send}; if the write fails before the frame left ({@link UnsentFrame}:
     * the connection closed, or its peer let it go, at that moment), once more on a new connection
     * ({@link Resend}: never for a frame that may have reached the peer, nor for a request with a
     * data stream).
     */
    public CompletableFuture<Void> send(String peer, InetSocketAddress address, Object message) {
        return send(peer, address, ch -> message);
    }

    /**
     * As {@link #send(String, InetSocketAddress, Object)}, the frame made for the connection it goes on
     * by {@code frameFor} (a hop request charged for that connection's one-way time), again if it is
     * sent again.
     */
    public CompletableFuture<Void> send(String peer, InetSocketAddress address, Function<Channel, Object> frameFor) {
        return Resend.once(() -> connect(peer, address), frameFor, this::send);
    }

    /**
     * Sends {@code first}, then {@code second}, to {@code peer} as {@link #send(String, InetSocketAddress,
     * Object)} does, flushed together: one wake-up of the connection's event loop and one write to its
     * socket, so that they arrive together (an atomic hop's VOTE and the chain's result). Encoded on
     * the calling thread; neither may be a hop request. The future is {@code second}'s; a failure to
     * send {@code first} goes to {@code firstFailed} (a {@code first} that cannot be encoded does not
     * keep {@code second} from being sent).
     */
    public CompletableFuture<Void> sendTogether(String peer, InetSocketAddress address, Object first, Object second,
                                                Consumer<Throwable> firstFailed) {
        if (first instanceof ChainRequest || second instanceof ChainRequest) {
            throw new IllegalArgumentException("a hop request is sent alone: its data stream starts when it is written");
        }
        return connect(peer, address).whenComplete((ch, e) -> {
            if (e != null) {
                firstFailed.accept(e);
            }
        }).thenCompose(ch -> writer.sendTogether(ch, first, second, firstFailed));
    }

    /**
     * Stops listening, closes every connection and, for a node on the shared event loops, gives up
     * its hold on them (the last node to close shuts them down). A group the caller gave is left
     * running. Later sends fail at once. Idempotent.
     */
    @Override
    public void close() {
        if (!lifecycle.close()) {
            return;
        }
        EventLoopGroup loops = lifecycle.group();
        Channel s = serverChannel;
        if (s != null) {
            s.close().syncUninterruptibly();
        }
        lifecycle.closeConnections();
        table.clear();
        if (loops != null && config.group() == null) {
            sharedGroup().release();
        }
    }

    private SharedResource<EventLoopGroup> sharedGroup() {
        return sockets.kind() == SocketTransport.EPOLL ? SHARED_EPOLL_GROUP : SHARED_NIO_GROUP;
    }

    private static SharedResource<EventLoopGroup> sharedGroup(String kind, Supplier<SocketFamily> family) {
        return new SharedResource<>("rpcc's shared " + kind + " event loops",
                () -> new MultiThreadIoEventLoopGroup(Math.max(2, Runtime.getRuntime().availableProcessors()),
                        new DefaultThreadFactory("rpcc-io", true), family.get().handlers().get()),
                g -> g.shutdownGracefully(0, 2, TimeUnit.SECONDS));
    }
}
