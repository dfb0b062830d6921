package io.rpcc.core.internal.transport;

import io.netty.buffer.ByteBuf;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelFutureListener;
import io.netty.util.AttributeKey;
import io.rpcc.core.ChainErrorCode;
import io.rpcc.core.Refusal;
import io.rpcc.core.internal.wire.Hello;
import io.rpcc.core.internal.wire.HopFailure;
import io.rpcc.core.internal.wire.WireFormat;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.function.BooleanSupplier;

/**
 * Writes frames to a node's connections and holds back what would overwhelm them: encodes a frame
 * on the calling thread within the peer's frame limit, writes it (flushed with the other frames of
 * the same turn of the event loop by the connection's {@code "flush"} handler), closes a connection
 * whose peer leaves more than the write-queue limit unread or reads nothing for the write-stall
 * timeout ({@link WriteStallWatch}), pauses reading the requests of a peer that does not read
 * ({@link ReadPauses}), and lets producers wait until a connection can take more
 * ({@link WritabilityGate}).
 *
 * <p>Who releases what: {@link #write} takes over the frame it is given (Netty releases it once
 * written, or it is released here if refused); {@link #encode} hands a new frame to its caller.
 */
final class FrameWriter {
    private static final AttributeKey<WritabilityGate> GATE = AttributeKey.valueOf("rpcc.writability");
    private static final AttributeKey<WriteStallWatch> STALL = AttributeKey.valueOf("rpcc.writeStall");

    private final NodeTransport.Config config;
    private final WireFormat wire;
    private final ReadPauses pauses;
    private final ConnectionRefusals refusals;

    /** Writes within {@code config}'s frame size and limits, refusing stalled peers in {@code refusals}. */
    FrameWriter(NodeTransport.Config config, WireFormat wire, ReadPauses pauses, ConnectionRefusals refusals) {
        this.config = config;
        this.wire = wire;
        this.pauses = pauses;
        this.refusals = refusals;
    }

    /** See {@link NodeTransport#send(Channel, Object)}. */
    CompletableFuture<Void> send(Channel ch, Object message) {
        ByteBuf frame;
        try {
            frame = encode(ch, message);
        } catch (HopFailure e) {
            return CompletableFuture.failedFuture(e);
        }
        return write(ch, frame);
    }

    /** See {@link NodeTransport#encode}. */
    ByteBuf encode(Channel ch, Object message) {
        Hello peer = ConnectionAttributes.peer(ch);
        int limit = peer == null ? config.maxFrameSize() : Math.min(config.maxFrameSize(), peer.maxFrameSize());
        return wire.encode(message, limit, ch.alloc());
    }

    /** See {@link NodeTransport#write}. */
    CompletableFuture<Void> write(Channel ch, ByteBuf frame) {
        Hello peer = ConnectionAttributes.peer(ch);
        long queued = WriteQueue.pending(ch);
        if (queued + frame.readableBytes() > config.limits().maxQueuedWriteBytes()) {
            frame.release();
            refusals.refuse(ch, Refusal.WRITE_QUEUE_FULL, queued + " bytes wait to be written and the peer does not read "
                    + "(limit: " + config.limits().maxQueuedWriteBytes() + " bytes)", true);
            return CompletableFuture.failedFuture(new HopFailure(ChainErrorCode.HOP_UNREACHABLE, "connection to '"
                    + (peer == null ? ch.remoteAddress() : peer.node()) + "' closed: " + queued + " bytes were "
                    + "waiting to be written to it and it did not read them"));
        }
        ConnectionAttributes.used(ch);
        CompletableFuture<Void> written = new CompletableFuture<>();
        // flushed once for the frames written in the same turn of the event loop (the "flush" handler)
        WriteQueue.writeAndFlush(ch, frame).addListener((ChannelFutureListener) f -> {
            pauses.drained(ch);
            if (f.isSuccess()) {
                written.complete(null);
            } else {
                written.completeExceptionally(new HopFailure(ChainErrorCode.HOP_UNREACHABLE, "connection to '"
                        + (peer == null ? ch.remoteAddress() : peer.node()) + "' failed while sending: "
                        + describe(f.cause()), f.cause()));
            }
        });
        pauses.queued(ch);
        return written;
    }

    /**
     * Encodes one of the connection's own frames (HELLO, PING) within this node's frame limit and
     * writes and flushes it at once, outside the write-queue limit.
     *
     * @throws HopFailure if it cannot be encoded
     */
    ChannelFuture writeOwn(Channel ch, Object frame) {
        return WriteQueue.writeAndFlush(ch, wire.encode(frame, config.maxFrameSize(), ch.alloc()));
    }

    /** See {@link NodeTransport#awaitWritable(Channel, Duration, BooleanSupplier)}. */
    boolean awaitWritable(Channel ch, Duration timeout, BooleanSupplier giveUp) throws InterruptedException {
        if (ch.isWritable()) {
            return true;
        }
        if (ch.eventLoop().inEventLoop()) {
            throw new IllegalStateException("cannot wait for a slow reader on an event loop");
        }
        WritabilityGate gate = ch.attr(GATE).setIfAbsent(new WritabilityGate());
        if (gate == null) {
            gate = ch.attr(GATE).get();
        }
        return gate.await(ch, timeout, giveUp);
    }

    /**
     * {@code ch}'s writability changed (on its event loop): waiting producers look again; a
     * connection that drained may have its peer's requests read again, one that filled is watched
     * for a stall.
     */
    void writabilityChanged(Channel ch) {
        WritabilityGate gate = ch.attr(GATE).get();
        if (gate != null) {
            gate.changed();
        }
        if (ch.isWritable()) {
            pauses.drained(ch);
        } else {
            WriteStallWatch watch = ch.attr(STALL).get();
            if (watch == null) {
                watch = new WriteStallWatch(ch, config.limits().writeStallTimeout(), () -> refusals.refuse(ch,
                        Refusal.WRITE_STALLED, "it read none of the " + WriteQueue.pending(ch)
                        + " bytes waiting to be written to it for " + config.limits().writeStallTimeout().toMillis()
                        + " ms", true));
                ch.attr(STALL).set(watch);
            }
            watch.start();
        }
    }

    /** {@code ch} closed: producers waiting for it to drain stop waiting. */
    void closed(Channel ch) {
        WritabilityGate gate = ch.attr(GATE).get();
        if (gate != null) {
            gate.changed();
        }
    }

    /** How a failure reads in a {@link HopFailure}'s message: its own message, or its type's name. */
    static String describe(Throwable t) {
        String m = t.getMessage();
        return m == null ? t.getClass().getSimpleName() : m;
    }
}
