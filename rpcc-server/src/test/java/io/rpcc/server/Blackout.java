package io.rpcc.server;

import io.netty.channel.ChannelDuplexHandler;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelPipeline;
import io.netty.channel.ChannelPromise;
import io.netty.util.ReferenceCountUtil;
import java.util.ArrayDeque;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Consumer;

/**
 * Makes a node go silent the way a frozen machine or a stalled network does, without closing
 * anything: once {@link #cut()}, every connection of the node holds what it reads and what it
 * writes (as TCP buffers would), so its peers see neither a byte nor a closed connection; new
 * connections are accepted and then hear nothing. {@link #heal()} lets the held bytes through, in
 * order; closing the node (a crash) discards them. {@link #cutInbound()} holds only what the node
 * reads. Installed first in every pipeline of the node, before rpcc's framing.
 */
final class Blackout {
    private volatile boolean inbound;
    private volatile boolean outbound;
    private final Set<Link> links = ConcurrentHashMap.newKeySet();

    /** The pipeline customizer that installs this blackout on the node's connections. */
    Consumer<ChannelPipeline> customizer() {
        return p -> p.addFirst("blackout", new Link());
    }

    /** The node goes silent both ways. */
    void cut() {
        inbound = true;
        outbound = true;
    }

    /** The node hears nothing more, but what it sends still arrives. */
    void cutInbound() {
        inbound = true;
    }

    /** The links carry bytes again, the held ones first. */
    void heal() {
        inbound = false;
        outbound = false;
        links.forEach(Link::release);
    }

    /** One connection's end at the node. Its queues are touched on its event loop only. */
    private final class Link extends ChannelDuplexHandler {
        private final ArrayDeque<Object> reads = new ArrayDeque<>();
        private final ArrayDeque<Object> writes = new ArrayDeque<>();
        private ChannelHandlerContext ctx;

        @Override
        public void handlerAdded(ChannelHandlerContext ctx) {
            this.ctx = ctx;
            links.add(this);
        }

        @Override
        public void channelRead(ChannelHandlerContext ctx, Object msg) {
            if (inbound || !reads.isEmpty()) {
                reads.add(msg);
            } else {
                ctx.fireChannelRead(msg);
            }
        }

        @Override
        public void write(ChannelHandlerContext ctx, Object msg, ChannelPromise promise) {
            if (outbound || !writes.isEmpty()) {
                writes.add(msg);
                promise.trySuccess(); // in the socket's buffer, as far as the writer can tell
            } else {
                ctx.write(msg, promise);
            }
        }

        @Override
        public void flush(ChannelHandlerContext ctx) {
            if (!outbound) {
                ctx.flush();
            }
        }

        void release() {
            ctx.executor().execute(() -> {
                if (!ctx.channel().isActive()) {
                    return;
                }
                while (!inbound && !reads.isEmpty()) {
                    ctx.fireChannelRead(reads.poll());
                }
                while (!outbound && !writes.isEmpty()) {
                    ctx.write(writes.poll());
                }
                ctx.flush();
            });
        }

        @Override
        public void handlerRemoved(ChannelHandlerContext ctx) {
            links.remove(this);
            reads.forEach(ReferenceCountUtil::release);
            writes.forEach(ReferenceCountUtil::release);
            reads.clear();
            writes.clear();
        }
    }
}
