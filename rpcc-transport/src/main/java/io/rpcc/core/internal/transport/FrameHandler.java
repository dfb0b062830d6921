package io.rpcc.core.internal.transport;

import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.SimpleChannelInboundHandler;
import io.netty.handler.ssl.SslHandshakeCompletionEvent;
import io.netty.handler.timeout.IdleStateEvent;

/**
 * rpcc's handler of one connection (the {@code "rpcc"} handler, after the frame decoder): hands
 * what Netty tells of the connection to the parts of the transport that deal with it. Decoded
 * frames and read failures go to {@link InboundFrames}, the end of a TLS handshake to
 * {@link PeerAuthentication}, writability changes to {@link FrameWriter}; a connection that closes,
 * or that this node lets go ({@link GracefulClose#GOING_AWAY}), leaves the {@link PeerTable} and, if it was being dialed, fails its handshake ({@link Handshakes}).
 * The frames it reads are released when {@link InboundFrames} returns.
 */
final class FrameHandler extends SimpleChannelInboundHandler<Object> {
    private final Dial dial;
    private final InboundFrames frames;
    private final Handshakes handshakes;
    private final PeerAuthentication authentication;
    private final FrameWriter writer;
    private final PeerTable table;

    /** The handler of a connection: outbound as {@code dial}, or inbound if {@code dial} is {@code null}. */
    FrameHandler(Dial dial, InboundFrames frames, Handshakes handshakes, PeerAuthentication authentication,
                 FrameWriter writer, PeerTable table) {
        this.dial = dial;
        this.frames = frames;
        this.handshakes = handshakes;
        this.authentication = authentication;
        this.writer = writer;
        this.table = table;
    }

    @Override
    protected void channelRead0(ChannelHandlerContext ctx, Object msg) {
        frames.read(ctx, msg, dial);
    }

    @Override
    public void userEventTriggered(ChannelHandlerContext ctx, Object evt) throws Exception {
        if (evt instanceof IdleStateEvent) { // ConnectionHealth's, handled there
            return;
        }
        if (evt == GracefulClose.GOING_AWAY) { // this node lets the connection go: no new chain is handed it
            table.closed(ctx.channel());
            return;
        }
        if (evt instanceof SslHandshakeCompletionEvent done) {
            authentication.onTlsHandshake(ctx, dial, done);
        }
        super.userEventTriggered(ctx, evt);
    }

    @Override
    public void channelWritabilityChanged(ChannelHandlerContext ctx) throws Exception {
        writer.writabilityChanged(ctx.channel());
        super.channelWritabilityChanged(ctx);
    }

    @Override
    public void channelInactive(ChannelHandlerContext ctx) throws Exception {
        writer.closed(ctx.channel());
        table.closed(ctx.channel());
        if (dial != null) {
            handshakes.closed(ctx.channel(), dial);
        }
        super.channelInactive(ctx);
    }

    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
        frames.failed(ctx, cause);
    }
}
