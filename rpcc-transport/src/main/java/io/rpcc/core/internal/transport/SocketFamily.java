package io.rpcc.core.internal.transport;

import io.netty.channel.Channel;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.IoEventLoopGroup;
import io.netty.channel.IoHandlerFactory;
import io.netty.channel.ServerChannel;
import io.netty.channel.epoll.EpollIoHandler;
import io.netty.channel.epoll.EpollServerSocketChannel;
import io.netty.channel.epoll.EpollSocketChannel;
import io.netty.channel.nio.NioIoHandler;
import io.netty.channel.socket.nio.NioServerSocketChannel;
import io.netty.channel.socket.nio.NioSocketChannel;
import io.rpcc.core.SocketTransport;
import java.util.function.Supplier;

/**
 * The Netty classes of one socket transport: the event loops' I/O handler and the channels a node
 * listens and dials with, which must be of its event loops' kind. The epoll classes are only touched
 * when epoll is taken ({@link #epoll()}), so a class path without them still runs NIO.
 *
 * @param kind which transport ({@link SocketTransport#EPOLL} or {@link SocketTransport#NIO})
 * @param serverChannel the channel a node listens with
 * @param channel the channel a node dials with (and accepts as)
 * @param handlers makes the I/O handlers of a new event loop group
 */
record SocketFamily(SocketTransport kind, Class<? extends ServerChannel> serverChannel,
                    Class<? extends Channel> channel, Supplier<IoHandlerFactory> handlers) {

    /** The JDK's NIO. */
    static final SocketFamily NIO = new SocketFamily(SocketTransport.NIO, NioServerSocketChannel.class,
            NioSocketChannel.class, NioIoHandler::newFactory);

    /** Linux's epoll; only where {@link TransportSelection#epollUnavailability()} is {@code null}. */
    static SocketFamily epoll() {
        return new SocketFamily(SocketTransport.EPOLL, EpollServerSocketChannel.class, EpollSocketChannel.class,
                EpollIoHandler::newFactory);
    }

    /**
     * The transport of the event loops in {@code group} (a user's group), or {@code null} if they are
     * neither NIO's nor epoll's (an old-style or a custom group: they get NIO channels, as before
     * rpcc chose a transport).
     */
    static SocketFamily of(EventLoopGroup group) {
        if (!(group instanceof IoEventLoopGroup loops)) {
            return null;
        }
        if (loops.isIoType(NioIoHandler.class)) {
            return NIO;
        }
        try {
            return loops.isIoType(EpollIoHandler.class) ? epoll() : null;
        } catch (LinkageError e) { // netty-transport-classes-epoll left off the class path: not an epoll group
            return null;
        }
    }
}
