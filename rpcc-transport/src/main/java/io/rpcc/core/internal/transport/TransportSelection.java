package io.rpcc.core.internal.transport;

import io.netty.channel.EventLoopGroup;
import io.netty.channel.epoll.Epoll;
import io.rpcc.core.SocketTransport;
import java.util.Locale;
import java.util.concurrent.atomic.AtomicBoolean;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Which socket transport a node runs on ({@link SocketFamily}): the one asked for
 * ({@link SocketTransport}), or with {@link SocketTransport#AUTO} epoll where it is available and NIO
 * otherwise. A node with event loops of its own runs on their kind, and fails to start if asked for
 * the other. Why {@code AUTO} did not take epoll is logged once per JVM (at INFO on Linux, where epoll
 * was to be expected; at DEBUG elsewhere).
 *
 * <p>Epoll counts as unavailable, as for Netty, while the system property
 * {@value #NO_NATIVE_PROPERTY} is {@code true}; unlike Netty, which reads it once, the property is
 * read at every node's start (how tests take epoll away in a JVM where it loaded).
 */
final class TransportSelection {
    /** Netty's switch that turns its native transports off. */
    static final String NO_NATIVE_PROPERTY = "io.netty.transport.noNative";
    private static final Logger log = LoggerFactory.getLogger(NodeTransport.class);
    private static final AtomicBoolean FALLBACK_LOGGED = new AtomicBoolean();

    private TransportSelection() {
    }

    /**
     * The transport node {@code node} runs on, asked for {@code requested}, with the user's event
     * loops {@code group} or {@code null} for rpcc's shared ones.
     *
     * @throws IllegalStateException if the node is asked for epoll where it is unavailable, or for a
     *     transport other than its own event loops'
     */
    static SocketFamily select(String node, SocketTransport requested, EventLoopGroup group) {
        if (group != null) {
            return ofGroup(node, requested, group);
        }
        return switch (requested) {
            case NIO -> SocketFamily.NIO;
            case EPOLL -> {
                String why = epollUnavailability();
                if (why != null) {
                    throw new IllegalStateException("node '" + node + "' is set to the epoll transport, but epoll is not "
                            + "available here: " + why + ". Set the transport to AUTO (epoll where it loads, NIO "
                            + "elsewhere) or NIO (NodeBuilder.transport, rpcc.transport), or make epoll load: Linux "
                            + "x86-64 with glibc, a writable temporary directory (java.io.tmpdir or "
                            + "io.netty.native.workdir), netty-transport-native-epoll for this platform on the class path");
                }
                yield SocketFamily.epoll();
            }
            case AUTO -> {
                String why = epollUnavailability();
                if (why == null) {
                    yield SocketFamily.epoll();
                }
                logFallback(why);
                yield SocketFamily.NIO;
            }
        };
    }

    private static SocketFamily ofGroup(String node, SocketTransport requested, EventLoopGroup group) {
        SocketFamily family = SocketFamily.of(group);
        SocketTransport kind = family == null ? SocketTransport.NIO : family.kind();
        if (requested != SocketTransport.AUTO && requested != kind) {
            throw new IllegalStateException("node '" + node + "' is set to the " + name(requested) + " transport, but "
                    + "the event loop group it was given is " + (family == null ? "neither NIO's nor epoll's ("
                    + group.getClass().getName() + ")" : name(kind) + "'s") + ": give it a group of "
                    + name(requested) + "'s (MultiThreadIoEventLoopGroup with " + (requested == SocketTransport.EPOLL
                    ? "EpollIoHandler" : "NioIoHandler") + ".newFactory()), or set the transport to AUTO, which "
                    + "follows the group");
        }
        return family == null ? SocketFamily.NIO : family;
    }

    /** Why epoll cannot be used in this JVM, or {@code null} if it can. */
    static String epollUnavailability() {
        if (Boolean.getBoolean(NO_NATIVE_PROPERTY)) {
            return "native transports are switched off (system property " + NO_NATIVE_PROPERTY + "=true)";
        }
        try {
            if (Epoll.isAvailable()) {
                return null;
            }
            Throwable cause = Epoll.unavailabilityCause();
            return cause == null ? "Netty says epoll is unavailable" : describe(cause);
        } catch (LinkageError e) {
            return "Netty's epoll classes are not on the class path (netty-transport-classes-epoll): " + e;
        }
    }

    private static String describe(Throwable cause) {
        StringBuilder b = new StringBuilder(String.valueOf(cause));
        for (Throwable c = cause.getCause(); c != null && c != cause; c = c.getCause()) {
            b.append("; caused by ").append(c);
        }
        return b.toString();
    }

    private static void logFallback(String why) {
        if (!FALLBACK_LOGGED.compareAndSet(false, true)) {
            return;
        }
        String message = "rpcc: the native epoll transport is not available ({}); nodes set to transport AUTO use NIO";
        if (System.getProperty("os.name", "").toLowerCase(Locale.ROOT).contains("linux")) {
            log.info(message, why);
        } else {
            log.debug(message, why);
        }
    }

    private static String name(SocketTransport kind) {
        return kind.name().toLowerCase(Locale.ROOT);
    }
}
