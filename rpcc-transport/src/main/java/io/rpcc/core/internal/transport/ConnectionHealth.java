package io.rpcc.core.internal.transport;

import io.netty.channel.ChannelHandlerContext;
import io.netty.handler.timeout.IdleState;
import io.netty.handler.timeout.IdleStateEvent;
import io.netty.handler.timeout.IdleStateHandler;
import java.time.Duration;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;

/**
 * Watches one connection, as the first handler of its pipeline (after TLS), for two things:
 *
 * <ul>
 *   <li><b>A silent peer.</b> When nothing was read for the ping interval (Netty's
 *       {@link IdleStateHandler} tells), {@code ping} sends a PING, if the handshake is done; if then
 *       not a byte is read within the ping timeout, {@code onSilent} runs (the node closes the
 *       connection). Any byte counts as an answer: a peer busy sending a large frame is alive even if
 *       its answer waits behind that frame.
 *   <li><b>An idle connection.</b> When no frame other than PINGs went either way for the idle
 *       timeout, {@code onIdle} runs (the node lets it go: {@link GracefulClose}). PINGs keep a
 *       connection checked, not open: an idle connection is still let go. A connection whose
 *       handshake is not done is not idle: the handshake timeout (inbound) or the connect timeout
 *       (outbound) bounds it.
 * </ul>
 *
 * Timers run on the connection's event loop; {@link #used} may be called from any thread.
 */
final class ConnectionHealth extends IdleStateHandler {
    private final long pingTimeoutNanos;
    private final long idleNanos;
    private final BooleanSupplier ping;
    private final Runnable onSilent;
    private final Runnable onIdle;
    private volatile long lastUsedNanos = System.nanoTime();
    private long reads;
    private ScheduledFuture<?> pingTimer;
    private ScheduledFuture<?> idleTimer;
    private ChannelHandlerContext ctx;

    /**
     * @param policy the ping interval and timeout (a zero interval: no PINGs)
     * @param idleTimeout how long a connection may carry no frame other than PINGs ({@link Duration#ZERO}: forever)
     * @param ping sends a PING, or returns {@code false} if it cannot yet (no handshake)
     */
    ConnectionHealth(ConnectionPolicy policy, Duration idleTimeout, BooleanSupplier ping, Runnable onSilent,
                     Runnable onIdle) {
        super(policy.pingInterval().toNanos(), 0, 0, TimeUnit.NANOSECONDS);
        this.pingTimeoutNanos = policy.pingTimeout().toNanos();
        this.idleNanos = idleTimeout.toNanos();
        this.ping = ping;
        this.onSilent = onSilent;
        this.onIdle = onIdle;
    }

    /** When a frame other than a PING last went either way ({@link System#nanoTime}). */
    long lastUsedNanos() {
        return lastUsedNanos;
    }

    /** A frame other than a PING went either way: the connection is in use. */
    void used() {
        lastUsedNanos = System.nanoTime();
    }

    @Override
    public void handlerAdded(ChannelHandlerContext ctx) throws Exception {
        this.ctx = ctx;
        if (idleNanos > 0) {
            idleTimer = ctx.executor().schedule(this::checkIdle, idleNanos, TimeUnit.NANOSECONDS);
        }
        super.handlerAdded(ctx);
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) throws Exception {
        reads++;
        super.channelRead(ctx, msg);
    }

    @Override
    protected void channelIdle(ChannelHandlerContext ctx, IdleStateEvent evt) {
        if (evt.state() != IdleState.READER_IDLE || pingTimer != null || !ctx.channel().isActive()
                || GracefulClose.goingAway(ctx.channel()) || !ping.getAsBoolean()) { // (going away: bounded there)
            return;
        }
        long readsAtPing = reads;
        pingTimer = ctx.executor().schedule(() -> {
            pingTimer = null;
            if (reads == readsAtPing && ctx.channel().isActive()) {
                onSilent.run();
            }
        }, pingTimeoutNanos, TimeUnit.NANOSECONDS);
    }

    private void checkIdle() {
        if (!ctx.channel().isActive()) {
            return;
        }
        long since = System.nanoTime() - lastUsedNanos;
        if (ConnectionAttributes.peer(ctx.channel()) == null) { // not idle: its handshake (and timeout) is under way
            idleTimer = ctx.executor().schedule(this::checkIdle, idleNanos, TimeUnit.NANOSECONDS);
        } else if (since >= idleNanos) {
            onIdle.run();
        } else {
            idleTimer = ctx.executor().schedule(this::checkIdle, idleNanos - since, TimeUnit.NANOSECONDS);
        }
    }

    @Override
    public void handlerRemoved(ChannelHandlerContext ctx) throws Exception {
        stopTimers();
        super.handlerRemoved(ctx);
    }

    @Override
    public void channelInactive(ChannelHandlerContext ctx) throws Exception {
        stopTimers();
        super.channelInactive(ctx);
    }

    private void stopTimers() {
        if (pingTimer != null) {
            pingTimer.cancel(false);
            pingTimer = null;
        }
        if (idleTimer != null) {
            idleTimer.cancel(false);
            idleTimer = null;
        }
    }
}
