package io.rpcc.core.internal.transport;

import io.netty.channel.Channel;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.group.ChannelGroup;
import io.netty.channel.group.DefaultChannelGroup;
import io.netty.util.concurrent.GlobalEventExecutor;
import java.util.concurrent.TimeUnit;

/**
 * Where a node's transport is in its life (not started; running on its event loops; closed) and
 * the connections it holds open, inbound and outbound, which it closes when it closes. A connection
 * set up while the node closes is closed at once. Thread-safe.
 */
final class TransportLifecycle {
    private final ChannelGroup channels = new DefaultChannelGroup("rpcc", GlobalEventExecutor.INSTANCE);
    private volatile EventLoopGroup group;
    private volatile boolean closed;
    private final Disconnects disconnects = new Disconnects(this::closed);

    /** The transport runs on {@code group}. */
    void started(EventLoopGroup group) {
        this.group = group;
    }

    /** The event loops, or {@code null} before the transport started. */
    EventLoopGroup group() {
        return group;
    }

    /** Whether the transport closed (or is closing). */
    boolean closed() {
        return closed;
    }

    /** Marks the transport closed; false if it already was. */
    synchronized boolean close() {
        if (closed) {
            return false;
        }
        closed = true;
        return true;
    }

    /** Holds {@code ch} until it closes, or closes it if the transport closed. */
    void track(Channel ch) {
        disconnects.track(ch);
        channels.add(ch);
        if (closed) { // opened while the node closed: not kept
            ch.close();
        }
    }

    /** The connections that closed so far, by cause. */
    java.util.Map<io.rpcc.core.Disconnect, Long> disconnects() {
        return disconnects.snapshot();
    }

    /** The connections open now. */
    int open() {
        return channels.size();
    }

    /** Closes every connection, waiting at most 5 s. */
    void closeConnections() {
        channels.close().awaitUninterruptibly(5, TimeUnit.SECONDS);
    }
}
