package io.rpcc.core.internal.transport;

import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.handler.codec.DecoderException;
import io.rpcc.core.Disconnect;
import io.rpcc.core.Refusal;
import io.rpcc.core.internal.wire.CancelFrame;
import io.rpcc.core.internal.wire.ChainErrorFrame;
import io.rpcc.core.internal.wire.ChainRequest;
import io.rpcc.core.internal.wire.ChainResultFrame;
import io.rpcc.core.internal.wire.GoAwayFrame;
import io.rpcc.core.internal.wire.HeartbeatFrame;
import io.rpcc.core.internal.wire.Hello;
import io.rpcc.core.internal.wire.HopFailure;
import io.rpcc.core.internal.wire.PingFrame;
import io.rpcc.core.internal.wire.QuietFrame;
import io.rpcc.core.internal.wire.TxFrames;
import io.rpcc.core.internal.wire.ReplyFrame;
import io.rpcc.core.internal.wire.Serialization;
import io.rpcc.core.internal.wire.StreamFrames;
import io.rpcc.core.internal.wire.WindowUpdateFrame;
import java.io.IOException;
import java.util.concurrent.atomic.AtomicLong;
import javax.net.ssl.SSLException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Where what a node's connections read goes: PINGs to {@link RoundTrips}, GOAWAYs to
 * {@link GracefulClose}, HELLOs to
 * {@link Handshakes}, chain frames (counted; only once the connection's handshake is done) to the
 * node's {@link InboundListener}; what {@link FrameDecoder} refused, and malformed frames, refused
 * ({@link ConnectionRefusals}) and held against the connection ({@link BadFrames}: past its
 * allowance it is closed), as are values its decoder refused; the node's listener is told which
 * connection each frame came on, so that it holds what it refuses (forged frames) against it too;
 * a connection that fails is closed. Only well-formed frames the node took keep a
 * connection from its idle timeout.
 */
final class InboundFrames {
    private static final Logger log = LoggerFactory.getLogger(NodeTransport.class);

    private final ReadPauses pauses;
    private final RoundTrips roundTrips;
    private final Handshakes handshakes;
    private final ConnectionRefusals refusals;
    private final HopStreams streams;
    private final AtomicLong framesReceived = new AtomicLong();
    private volatile InboundListener listener;

    /** Frames handed on to these parts (and, once the node listens, its listener). */
    InboundFrames(ReadPauses pauses, RoundTrips roundTrips, Handshakes handshakes, ConnectionRefusals refusals,
                  HopStreams streams) {
        this.pauses = pauses;
        this.streams = streams;
        this.roundTrips = roundTrips;
        this.handshakes = handshakes;
        this.refusals = refusals;
    }

    /** Chain frames go to {@code listener} from now on. */
    void deliverTo(InboundListener listener) {
        this.listener = listener;
    }

    /** Frames decoded so far, PINGs aside. */
    long received() {
        return framesReceived.get();
    }

    /**
     * {@code msg} was decoded on {@code ctx}'s connection (outbound if {@code dial} is not {@code null}).
     * Only a well-formed frame that the node did not refuse counts as the connection being used (for
     * its idle timeout); a refused one counts as one of its {@link BadFrames}.
     */
    void read(ChannelHandlerContext ctx, Object msg, Dial dial) {
        Channel ch = ctx.channel();
        if (msg instanceof PingFrame p) { // (about the connection, not counted as a frame received)
            roundTrips.onPing(ch, p);
            return;
        }
        if (msg instanceof GoAwayFrame) { // (about the connection too; not after a refused HELLO, nor once closing)
            if (ConnectionAttributes.peer(ch) != null && ch.isActive()) {
                GracefulClose.received(ch);
            }
            return;
        }
        framesReceived.incrementAndGet();
        if (!(msg instanceof Hello || msg instanceof FrameDecoder.Refused || msg instanceof FrameDecoder.VersionMismatch)
                && (ConnectionAttributes.peer(ch) == null || !ch.isActive())) {
            // the HELLO before it was refused (TLS identity) and the connection is closing: frames
            // decoded from the same read must not run
            return;
        }
        BadFrames bad = BadFrames.of(ch);
        long badBefore = bad == null ? 0 : bad.count();
        hand(ch, msg, dial); // whatever refuses the frame holds it against ch (BadFrames)
        if (!(msg instanceof FrameDecoder.MalformedFrame || msg instanceof FrameDecoder.Refused
                || msg instanceof FrameDecoder.VersionMismatch) && (bad == null || bad.count() == badBefore)) {
            ConnectionAttributes.used(ch);
        }
    }

    private void hand(Channel ch, Object msg, Dial dial) {
        switch (msg) {
            case ChainRequest r -> {
                refusedValue(ch, r.decodeError());
                pauses.requestFrom(ConnectionAttributes.peer(ch).node(), ch);
                listener.onRequest(streams.announced(ch, r), ch); // (its stream registered before its data is read)
            }
            case StreamFrames.Data d -> streams.onData(ch, d);
            case StreamFrames.End e -> streams.onEnd(ch, e);
            case StreamFrames.Credit c -> streams.onCredit(ch, c);
            case StreamFrames.Cancel c -> streams.onCancel(ch, c);
            case ChainResultFrame r -> {
                refusedValue(ch, r.decodeError());
                listener.onResult(r, ch);
            }
            case ChainErrorFrame e -> listener.onError(e, ch);
            case ReplyFrame r -> {
                refusedValue(ch, r.decodeError());
                listener.onReply(r, ch);
            }
            case QuietFrame q -> listener.onQuiet(q, ch);
            case CancelFrame c -> listener.onCancel(c, ch);
            case HeartbeatFrame f -> listener.onHeartbeat(f, ch);
            case WindowUpdateFrame w -> listener.onWindowUpdate(w, ch);
            case TxFrames.TxFrame t -> listener.onTransaction(t, ch);
            case Hello h -> handshakes.onHello(ch, dial, h);
            case FrameDecoder.MalformedFrame m -> malformed(ch, m.reason());
            case FrameDecoder.VersionMismatch v -> handshakes.onVersionMismatch(ch, dial, v);
            case FrameDecoder.Refused r -> refusals.refuse(ch, r.kind(), r.reason(), r.closes());
            default -> throw new IllegalStateException("unexpected message " + msg.getClass());
        }
    }

    /**
     * Reading {@code ctx}'s connection failed with {@code cause}: a TLS failure is kept for the
     * handshake's message (and counted, if refused here, by the TLS handshake's end), a frame over
     * the size limit refused as malformed (its bytes are skipped: the connection stays); anything
     * else closes the connection.
     */
    void failed(ChannelHandlerContext ctx, Throwable cause) {
        SSLException tlsFailure = tlsFailure(cause);
        if (tlsFailure != null) { // counted (if refused here) by the handshake event
            ctx.channel().attr(ConnectionAttributes.TLS_FAILURE).set(tlsFailure);
            log.debug("node '{}': TLS failure on {}: {}", refusals.nodeName(), ctx.channel(), tlsFailure.toString());
            Disconnects.closing(ctx.channel(), Disconnect.ERROR);
            ctx.close();
            return;
        }
        if (cause instanceof DecoderException) { // a frame over the size limit (its bytes are skipped)
            malformed(ctx.channel(), cause.getCause() != null ? cause.getCause() : cause);
            return;
        }
        if (cause instanceof IOException) {
            log.debug("connection {} failed: {}", ctx.channel(), cause.toString());
        } else {
            log.warn("node '{}': unexpected error on {}", refusals.nodeName(), ctx.channel(), cause);
        }
        Disconnects.closing(ctx.channel(), Disconnect.ERROR);
        ctx.close();
    }

    /**
     * A value of a frame read from {@code ch} that its decoder refused ({@code decodeError}, if any):
     * counted node-wide when it was refused ({@link Serialization}), and held against {@code ch} here.
     * (The frame still goes on: its chain is told why its value was refused.)
     */
    private void refusedValue(Channel ch, HopFailure decodeError) {
        Refusal kind = decodeError == null ? null : Serialization.refusalOf(decodeError);
        if (kind != null) {
            refusals.refusedWhileDecoded(ch, kind);
        }
    }

    private void malformed(Channel ch, Throwable reason) {
        refusals.refuse(ch, Refusal.MALFORMED_FRAME, "a malformed frame: " + reason.getMessage(), false);
    }

    private static SSLException tlsFailure(Throwable t) {
        for (Throwable c = t; c != null; c = c.getCause()) {
            if (c instanceof SSLException ssl) {
                return ssl;
            }
        }
        return null;
    }
}
