package io.rpcc.core.internal.transport;

import io.netty.bootstrap.Bootstrap;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoop;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.socket.SocketChannel;
import io.netty.util.concurrent.EventExecutor;
import io.rpcc.core.ChainErrorCode;
import io.rpcc.core.internal.wire.HopFailure;
import java.net.InetSocketAddress;

/**
 * Opens connections to peers: connects (within the connect timeout) on the node's event loops,
 * sets the connection up ({@link ConnectionPipeline}) and starts its handshake ({@link Handshakes}).
 * A node that is not started, or closed, dials nothing.
 */
final class Dialer {
    private final NodeTransport.Config config;
    private final SocketFamily sockets;
    private final TransportLifecycle lifecycle;
    private final ConnectionPipeline pipeline;
    private final Handshakes handshakes;

    /** Dials for a node set up by {@code config}, with the channels of {@code sockets} (its event loops' kind). */
    Dialer(NodeTransport.Config config, SocketFamily sockets, TransportLifecycle lifecycle, ConnectionPipeline pipeline,
           Handshakes handshakes) {
        this.config = config;
        this.sockets = sockets;
        this.lifecycle = lifecycle;
        this.pipeline = pipeline;
        this.handshakes = handshakes;
    }

    /**
     * Opens a connection to {@code dial}'s peer; its handshake completes with the connection once
     * the peer is known to be the node dialed, or fails with a {@link HopFailure} saying why not.
     */
    void open(Dial dial) {
        String peer = dial.peer();
        InetSocketAddress address = dial.key().address();
        EventLoopGroup loops = lifecycle.group();
        boolean closed = lifecycle.closed();
        if (closed || loops == null) {
            dial.handshake().completeExceptionally(new HopFailure(ChainErrorCode.HOP_UNREACHABLE, "node '" + config.nodeName()
                    + "' is " + (closed ? "closed" : "not started") + ": it cannot connect to '" + peer + "'"));
            return;
        }
        Bootstrap b = new Bootstrap()
                .group(config.netty().dialOnCallerLoop() ? loopOfCaller(loops) : loops)
                .channel(sockets.channel())
                .option(ChannelOption.TCP_NODELAY, true)
                .option(ChannelOption.CONNECT_TIMEOUT_MILLIS, (int) config.connectTimeout().toMillis())
                .handler(new ChannelInitializer<SocketChannel>() {
                    @Override
                    protected void initChannel(SocketChannel ch) {
                        pipeline.setUp(ch, dial);
                    }
                });
        InetSocketAddress from = localAddressFor(address);
        (from == null ? b.connect(address) : b.connect(address, from)).addListener((ChannelFutureListener) f -> {
            if (!f.isSuccess()) {
                dial.handshake().completeExceptionally(new HopFailure(ChainErrorCode.HOP_UNREACHABLE, "cannot connect to '"
                        + peer + "' at " + address + ": " + FrameWriter.describe(f.cause()), f.cause()));
                return;
            }
            Channel ch = f.channel();
            handshakes.opened(ch, dial);
        });
    }

    /**
     * The event loop of {@code loops} that runs this code, if one does (a hop run on the loop that
     * read its request, sending on): the new connection lives on it, so what that loop sends over
     * it is written at once, not handed to another loop and woken there; else {@code loops}, whose
     * next loop takes it. Only for nodes whose executor is the user's
     * ({@link NodeTransport.NettyHooks#dialOnCallerLoop}): with rpcc's own, hops send from their own
     * threads, and connections opened from a loop would only crowd onto it (a third less throughput
     * for plain calls in one JVM, measured).
     */
    private static EventLoopGroup loopOfCaller(EventLoopGroup loops) {
        for (EventExecutor e : loops) {
            if (e.inEventLoop() && e instanceof EventLoop loop) {
                return loop;
            }
        }
        return loops;
    }

    /**
     * Where a connection to {@code target} comes from: the IP address the node listens on, when it
     * listens on one (not the wildcard) and that address can reach the target (both loopback, or
     * neither); else {@code null}, the operating system's choice. So the node's peers see its
     * connections come from the address it advertises, which vouches for it
     * ({@code OutboundPolicy.VOUCHED}).
     */
    private InetSocketAddress localAddressFor(InetSocketAddress target) {
        InetSocketAddress bind = config.bind();
        if (bind == null || bind.getAddress() == null || bind.getAddress().isAnyLocalAddress()
                || target.getAddress() == null || target.getAddress().getClass() != bind.getAddress().getClass()
                || target.getAddress().isLoopbackAddress() != bind.getAddress().isLoopbackAddress()) {
            return null;
        }
        return new InetSocketAddress(bind.getAddress(), 0);
    }
}
