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
import java.util.function.Consumer;

/**
 * Writes frames to a node's connections and holds back what would overwhelm them: encodes a frame
 * on the calling thread within the peer's frame limit, writes it (flushed with the other frames of
 * the same turn of the event loop by the connection's {@code "flush"} handler), closes a connection
 * whose peer leaves more than the write-queue limit unread, or that holds the most when the node's
 * connections together near theirs ({@link WriteBudget}: every frame counts, the connection's own
 * PINGs and answers too), or whose peer reads nothing for the write-stall timeout ({@link WriteStallWatch}), pauses reading the requests of a peer that does not read
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
    private final WriteBudget budget;
    private volatile RoundTrips probes; // measures the throughput of large frames' connections, once set

    /** Writes within {@code config}'s frame size and limits, refusing stalled peers in {@code refusals}. */
    FrameWriter(NodeTransport.Config config, WireFormat wire, ReadPauses pauses, ConnectionRefusals refusals) {
        this.config = config;
        this.wire = wire;
        this.pauses = pauses;
        this.refusals = refusals;
        this.budget = new WriteBudget(config.limits().maxQueuedWriteBytes(), config.limits().maxTotalQueuedWriteBytes());
    }

    /** Has every large frame written by {@link #write} followed by a throughput probe of {@code probes}. */
    void probeLargeFramesWith(RoundTrips probes) {
        this.probes = probes;
    }

    /** See {@link NodeTransport#send(Channel, Object)}. */
    CompletableFuture<Void> send(Channel ch, Object message) {
        Hello peer = ConnectionAttributes.peer(ch); // (looked up once for both)
        ByteBuf frame;
        try {
            frame = encode(ch, message, peer);
        } catch (HopFailure e) {
            return CompletableFuture.failedFuture(e);
        }
        return write(ch, frame, peer);
    }

    /** See {@link NodeTransport#sendTogether}, on {@code ch}. */
    CompletableFuture<Void> sendTogether(Channel ch, Object first, Object second, Consumer<Throwable> firstFailed) {
        Hello peer = ConnectionAttributes.peer(ch);
        ByteBuf a;
        try {
            a = encode(ch, first, peer);
        } catch (HopFailure e) {
            firstFailed.accept(e);
            return send(ch, second);
        }
        ByteBuf b;
        try {
            b = encode(ch, second, peer);
        } catch (HopFailure e) {
            write(ch, a, peer, true).whenComplete((v, x) -> {
                if (x != null) {
                    firstFailed.accept(x);
                }
            });
            return CompletableFuture.failedFuture(e);
        }
        // the first is written without a flush (from another thread, a task that does not wake the event
        // loop), the second with one: the loop runs both and writes them to the socket at once
        write(ch, a, peer, false).whenComplete((v, x) -> {
            if (x != null) {
                firstFailed.accept(x);
            }
        });
        return write(ch, b, peer, true);
    }

    /** See {@link NodeTransport#encode}. */
    ByteBuf encode(Channel ch, Object message) {
        return encode(ch, message, ConnectionAttributes.peer(ch));
    }

    private ByteBuf encode(Channel ch, Object message, Hello peer) {
        int limit = peer == null ? config.maxFrameSize() : Math.min(config.maxFrameSize(), peer.maxFrameSize());
        return wire.encode(message, limit, ch.alloc());
    }

    /** See {@link NodeTransport#write}. */
    CompletableFuture<Void> write(Channel ch, ByteBuf frame) {
        return write(ch, frame, ConnectionAttributes.peer(ch));
    }

    private CompletableFuture<Void> write(Channel ch, ByteBuf frame, Hello peer) {
        return write(ch, frame, peer, true);
    }

    /** Writes {@code frame} to {@code ch}, flushed unless {@code flush} is false (a frame that another follows at once). */
    private CompletableFuture<Void> write(Channel ch, ByteBuf frame, Hello peer, boolean flush) {
        long cost = WriteBudget.cost(frame);
        WriteBudget.Held held = budget.held(ch); // (looked up once for the take and the give)
        String refused = take(ch, held, cost);
        if (refused != null) {
            frame.release();
            return CompletableFuture.failedFuture(new HopFailure(ChainErrorCode.HOP_UNREACHABLE, "connection to '"
                    + (peer == null ? ch.remoteAddress() : peer.node()) + "' closed: " + refused));
        }
        ConnectionAttributes.used(ch);
        CompletableFuture<Void> written = new CompletableFuture<>();
        // flushed once for the frames written in the same turn of the event loop (the "flush" handler); the
        // listener is on the promise before the write, so the loop runs it when the write completes (added after,
        // from another thread, to a write the loop had completed meanwhile, it would cost the loop a task and a wake-up)
        WriteQueue.write(ch, frame, flush, (ChannelFutureListener) f -> {
            budget.give(held, cost);
            pauses.drained(ch);
            if (f.isSuccess()) {
                written.complete(null);
            } else {
                written.completeExceptionally(new HopFailure(ChainErrorCode.HOP_UNREACHABLE, "connection to '"
                        + (peer == null ? ch.remoteAddress() : peer.node()) + "' failed while sending: "
                        + describe(f.cause()), f.cause() instanceof UnsentFrame u ? u
                        : new UnsentFrame("the frame was not written in full: " + describe(f.cause()), f.cause())));
            }
        });
        pauses.queued(ch);
        RoundTrips p = probes;
        if (p != null && cost >= LinkThroughput.PROBE_MIN_BYTES) {
            p.probe(ch, cost);
        }
        return written;
    }

    /**
     * Encodes one of the connection's own frames (HELLO, PING, a PING's answer) within this node's
     * frame limit and writes and flushes it at once, within the write budgets like every frame (a
     * peer that sends PINGs and reads no answer is closed at the write-queue limit); such a frame
     * does not count as the connection being used.
     *
     * @throws HopFailure if it cannot be encoded
     */
    ChannelFuture writeOwn(Channel ch, Object message) {
        ByteBuf frame = wire.encode(message, config.maxFrameSize(), ch.alloc());
        long cost = WriteBudget.cost(frame);
        WriteBudget.Held held = budget.held(ch);
        String refused = take(ch, held, cost);
        if (refused != null) {
            frame.release();
            return ch.newFailedFuture(new HopFailure(ChainErrorCode.HOP_UNREACHABLE, "connection closed: " + refused));
        }
        return WriteQueue.write(ch, frame, true, done -> budget.give(held, cost));
    }

    /**
     * Takes {@code cost} bytes of the write budgets for a frame on {@code ch} (which holds {@code held}): {@code null} if taken,
     * else why not ({@code ch} was closed and counted as {@link Refusal#WRITE_QUEUE_FULL}). Above three
     * quarters of the node's budget, the connection holding the most is closed.
     */
    private String take(Channel ch, WriteBudget.Held held, long cost) {
        WriteBudget.Outcome outcome = budget.take(held, cost);
        WriteBudget.Held shed = budget.shed();
        if (shed != null && (shed.ch != ch || outcome == WriteBudget.Outcome.TAKEN)) {
            refusals.refuse(shed.ch, Refusal.WRITE_QUEUE_FULL, "the node's connections hold " + budget.total()
                    + " bytes waiting to be written, over three quarters of its limit of "
                    + config.limits().maxTotalQueuedWriteBytes() + ", and this connection the most: "
                    + shed.get() + " bytes", true);
        }
        String why = switch (outcome) {
            case TAKEN -> null;
            case CONNECTION_FULL -> budget.heldBy(ch) + " bytes wait to be written and the peer does not read them "
                    + "(limit: " + config.limits().maxQueuedWriteBytes() + " bytes)";
            case NODE_FULL -> "the node's connections hold " + budget.total() + " bytes waiting to be written "
                    + "(limit: " + config.limits().maxTotalQueuedWriteBytes() + " bytes over all)";
        };
        if (why != null) {
            refusals.refuse(ch, Refusal.WRITE_QUEUE_FULL, why, true);
        }
        return why;
    }

    /** What the node's connections hold to be written: now, at most at once, at most on one connection. */
    WriteBudget budget() {
        return budget;
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
