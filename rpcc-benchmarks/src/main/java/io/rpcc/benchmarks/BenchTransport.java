package io.rpcc.benchmarks;

import io.netty.channel.Channel;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.IoHandlerFactory;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.ServerChannel;
import io.netty.channel.nio.NioIoHandler;
import io.netty.channel.socket.nio.NioServerSocketChannel;
import io.netty.channel.socket.nio.NioSocketChannel;
import java.lang.reflect.Method;
import java.util.Locale;

/**
 * The socket transport a throughput run measures on ({@code --transport}): the raw Netty echo's and
 * the per-node event loops' kind, and what rpcc's nodes are told ({@code NodeBuilder.transport}). Left
 * unset ({@code default}), rpcc's nodes keep their builder's default and the echo and per-node loops
 * run on NIO, as before the option. The runner also compiles against builds older than
 * {@code NodeBuilder.transport}, whose jar has no Netty epoll classes either
 * ({@code compare-builds.sh}): it reaches both by reflection.
 */
enum BenchTransport {
    /** Nodes as their builder has it; echo and per-node loops on NIO. */
    DEFAULT,
    /** Everything on NIO. */
    NIO,
    /** Everything on epoll. */
    EPOLL;

    /** The transport named {@code value}: {@code default}, {@code nio} or {@code epoll}. */
    static BenchTransport parse(String value) {
        return valueOf(value.toUpperCase(Locale.ROOT));
    }

    private static final String EPOLL_PACKAGE = "io.netty.channel.epoll.";

    /** A group of {@code threads} event loops of this transport. */
    EventLoopGroup newGroup(int threads) {
        IoHandlerFactory handlers = this == EPOLL ? (IoHandlerFactory) epoll("EpollIoHandler", "newFactory")
                : NioIoHandler.newFactory();
        return new MultiThreadIoEventLoopGroup(threads, handlers);
    }

    /** The listening channel of this transport. */
    Class<? extends ServerChannel> serverChannel() {
        return this == EPOLL ? epollClass("EpollServerSocketChannel").asSubclass(ServerChannel.class)
                : NioServerSocketChannel.class;
    }

    /** The connection channel of this transport. */
    Class<? extends Channel> channel() {
        return this == EPOLL ? epollClass("EpollSocketChannel").asSubclass(Channel.class) : NioSocketChannel.class;
    }

    private static Object epoll(String type, String method) {
        try {
            return epollClass(type).getMethod(method).invoke(null);
        } catch (ReflectiveOperationException e) {
            throw new IllegalStateException("--transport epoll: " + e, e);
        }
    }

    private static Class<?> epollClass(String name) {
        try {
            Class<?> epoll = Class.forName(EPOLL_PACKAGE + "Epoll");
            if (!Boolean.TRUE.equals(epoll.getMethod("isAvailable").invoke(null))) {
                throw new IllegalStateException("--transport epoll: epoll is not available here: "
                        + epoll.getMethod("unavailabilityCause").invoke(null));
            }
            return Class.forName(EPOLL_PACKAGE + name);
        } catch (ReflectiveOperationException e) {
            throw new IllegalStateException("--transport epoll: this build has no Netty epoll classes: " + e, e);
        }
    }

    /** Tells an rpcc node builder to run on this transport (nothing for {@link #DEFAULT}). */
    <B> B apply(B builder) {
        if (this == DEFAULT) {
            return builder;
        }
        try {
            @SuppressWarnings({"unchecked", "rawtypes"})
            Class<? extends Enum> kinds = (Class<? extends Enum>) Class.forName("io.rpcc.core.SocketTransport");
            @SuppressWarnings("unchecked")
            Object kind = Enum.valueOf(kinds, name());
            Method m = builder.getClass().getMethod("transport", kinds);
            m.invoke(builder, kind);
            return builder;
        } catch (ReflectiveOperationException e) {
            throw new IllegalStateException("--transport " + name().toLowerCase(Locale.ROOT)
                    + ": this build of rpcc has no NodeBuilder.transport", e);
        }
    }

    /**
     * The transport gRPC-java runs on: grpc-netty-shaded carries its own Netty with epoll's native
     * library and takes epoll where it loads, NIO elsewhere.
     */
    static String grpc() {
        try {
            Class<?> epoll = Class.forName("io.grpc.netty.shaded.io.netty.channel.epoll.Epoll");
            return Boolean.TRUE.equals(epoll.getMethod("isAvailable").invoke(null)) ? "epoll" : "nio";
        } catch (ReflectiveOperationException | LinkageError e) {
            return "nio";
        }
    }
}
