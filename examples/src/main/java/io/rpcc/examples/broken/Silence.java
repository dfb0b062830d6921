package io.rpcc.examples.broken;

import io.netty.channel.ChannelDuplexHandler;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelPipeline;
import io.netty.channel.ChannelPromise;
import io.netty.util.ReferenceCountUtil;
import java.util.function.Consumer;

/**
 * What a dying process leaves behind: once {@link #on()}, a node's connections drop whatever it
 * reads and whatever it would still write (a write "succeeds", as one into a socket buffer that is
 * then lost), so that nothing the node does while it is being closed reaches its peers. Installed
 * first in every pipeline of the node.
 */
final class Silence {
    private volatile boolean on;

    /** The pipeline customizer that installs this silence on the node's connections. */
    Consumer<ChannelPipeline> customizer() {
        return p -> p.addFirst("silence", new ChannelDuplexHandler() {
            @Override
            public void channelRead(ChannelHandlerContext ctx, Object msg) {
                if (on) {
                    ReferenceCountUtil.release(msg);
                } else {
                    ctx.fireChannelRead(msg);
                }
            }

            @Override
            public void write(ChannelHandlerContext ctx, Object msg, ChannelPromise promise) {
                if (on) {
                    ReferenceCountUtil.release(msg);
                    promise.trySuccess();
                } else {
                    ctx.write(msg, promise);
                }
            }
        });
    }

    /** From now on the node is silent. */
    void on() {
        on = true;
    }
}
