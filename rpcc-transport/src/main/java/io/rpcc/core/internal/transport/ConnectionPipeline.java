package io.rpcc.core.internal.transport;

import io.netty.channel.socket.SocketChannel;
import io.rpcc.core.Disconnect;
import io.rpcc.core.Refusal;
import io.rpcc.core.internal.wire.WireFormat;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Function;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Sets up every connection of a node, inbound or outbound, with rpcc's handlers in order:
 * {@code "tls"} (with TLS), {@code "flush"} (flushes in bursts that grow: {@link RampingFlushHandler}),
 * {@code "health"} ({@link ConnectionHealth}: PINGs to a quiet peer, idle connections let go),
 * {@code "goaway"} ({@link GracefulClose}: how a connection is let go without losing a frame),
 * {@code "frames"} ({@link FrameDecoder}) and {@code "rpcc"} ({@link FrameHandler}); then what the
 * user adds. The connection is tracked by the {@link TransportLifecycle} until it closes.
 */
final class ConnectionPipeline {
    private static final Logger log = LoggerFactory.getLogger(NodeTransport.class);
    /** At most this many frames written on a connection before a flush, however busy it is. */
    private static final int FLUSH_AFTER_FRAMES = 64;

    private final NodeTransport.Config config;
    private final WireFormat wire;
    private final TlsContexts tls;
    private final TransportLifecycle lifecycle;
    private final RoundTrips roundTrips;
    private final ConnectionRefusals refusals;
    private final Function<Dial, FrameHandler> handlers;
    private final AtomicLong partialFrameBytes = new AtomicLong();

    /**
     * Pipelines of a node set up by {@code config}, with TLS if {@code tls} is not {@code null};
     * {@code handlers} makes a connection's {@link FrameHandler}.
     */
    ConnectionPipeline(NodeTransport.Config config, WireFormat wire, TlsContexts tls, TransportLifecycle lifecycle,
                       RoundTrips roundTrips, ConnectionRefusals refusals, Function<Dial, FrameHandler> handlers) {
        this.config = config;
        this.wire = wire;
        this.tls = tls;
        this.lifecycle = lifecycle;
        this.roundTrips = roundTrips;
        this.refusals = refusals;
        this.handlers = handlers;
    }

    /**
     * {@code ch} carried no frame other than PINGs for the idle timeout: counted as
     * {@link Refusal#IDLE_TIMEOUT} and let go gracefully ({@link GracefulClose}).
     */
    private void idle(SocketChannel ch) {
        refusals.count(Refusal.IDLE_TIMEOUT);
        log.debug("node '{}' lets {} go: no frame either way (other than PINGs) for {} ms", config.nodeName(), ch,
                config.limits().idleTimeout().toMillis());
        Disconnects.closing(ch, Disconnect.REFUSED);
        GracefulClose.goAway(ch);
    }

    /** Sets up connection {@code ch}: inbound if {@code dial} is {@code null}, else outbound as {@code dial}. */
    void setUp(SocketChannel ch, Dial dial) {
        lifecycle.track(ch);
        if (tls != null) {
            ch.pipeline().addLast("tls", dial == null ? tls.inbound(ch.alloc(), config.connectTimeout())
                    : tls.outbound(ch.alloc(), dial.key().address(), config.connectTimeout()));
        }
        if (dial != null) {
            ch.attr(ConnectionAttributes.KEY).set(dial.key());
        }
        roundTrips.track(ch);
        BadFrames.track(ch, config.limits().maxBadFramesPerConnection(), config.limits().badFrameRefillPerMinute(),
                refusals);
        ConnectionHealth health = new ConnectionHealth(config.connections(), config.limits().idleTimeout(),
                () -> roundTrips.ping(ch),
                () -> refusals.refuse(ch, Refusal.SILENT_PEER, "nothing read within "
                        + config.connections().pingTimeout().toMillis() + " ms of a PING (after "
                        + config.connections().pingInterval().toMillis() + " ms of silence)", true),
                () -> idle(ch));
        ch.attr(ConnectionAttributes.HEALTH).set(health);
        // a burst of frames (those written while a read is handled, or handed to the loop together)
        // goes out in flushes of 1, 2, 4, ... frames: the peer starts on the first at once, and a
        // burst of n costs about log2(n) system calls, not n
        ch.pipeline().addLast("flush", new RampingFlushHandler(FLUSH_AFTER_FRAMES));
        ch.pipeline().addLast("health", health);
        ch.pipeline().addLast("goaway", new GracefulClose(wire, config.connections().pingTimeout()));
        ch.pipeline().addLast("frames", new FrameDecoder(wire, config.maxFrameSize(), config.limits(), partialFrameBytes));
        ch.pipeline().addLast("rpcc", handlers.apply(dial));
        try {
            config.pipelineCustomizer().accept(ch.pipeline());
        } catch (RuntimeException e) {
            log.warn("node '{}': the pipeline customizer failed on {}; connection closed", config.nodeName(), ch, e);
            Disconnects.closing(ch, Disconnect.ERROR);
            ch.close();
        }
    }
}
