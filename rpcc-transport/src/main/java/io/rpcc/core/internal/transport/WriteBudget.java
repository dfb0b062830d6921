package io.rpcc.core.internal.transport;

import io.netty.buffer.ByteBuf;
import io.netty.channel.Channel;
import io.netty.util.AttributeKey;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The bytes a node holds to write, per connection and over all its connections, as they are held
 * rather than as Netty counts them: every frame written to a connection (chain frames, PING answers,
 * WINDOW_UPDATEs, HELLOs) takes its bytes plus {@link #FRAME_OVERHEAD} ({@link #cost}) from both budgets
 * when it is written, and gives them back when its write ends (written, failed, or the connection
 * closed). A frame that would take a connection over {@link WireLimits#maxQueuedWriteBytes}, or the
 * node over {@link WireLimits#maxTotalQueuedWriteBytes}, is refused (the caller closes its
 * connection), so neither bound is ever passed. Before the node-wide bound is reached, above three
 * quarters of it, the connection holding the most is picked to be closed ({@link #shed}), one at a
 * time, so that a peer that reads nothing on many connections (many originators named by one
 * attacker) loses them before other peers' frames meet the bound.
 *
 * <p>Thread-safe: frames are written from hops' threads and event loops.
 */
final class WriteBudget {
    /**
     * What a queued frame holds on the heap besides its buffer's bytes: the buffer object and its
     * reference count, Netty's entry for it in the connection's outbound buffer, the write's promise
     * with its listeners (FrameWriter's, the progress counter's) and the caller's future. Measured by
     * {@code QueuedFrameFootprintTest} (rpcc-core's tests): 20,000 small frames queued to a peer that
     * reads nothing, a class histogram of the live heap ({@code jcmd GC.class_histogram}) before and
     * after. On JDK 25 with compressed references and Netty 4.2's adaptive allocator: 314 bytes a
     * frame (entry 64, buffer 74, promise 48, FrameWriter's listener 40, listener arrays 48, future
     * 24, reference count 16), plus 64 for the NIO view Netty caches in the entry once it tried to
     * write the frame: 378, rounded up. So a 15-byte PING answer holds 399 bytes where Netty counts
     * 111 (its length + 96). (Without compressed references, heaps over 32 GiB, the objects are
     * larger; the bounds then hold somewhat more than they say.)
     */
    static final int FRAME_OVERHEAD = 384;
    private static final AttributeKey<Held> HELD = AttributeKey.valueOf("rpcc.writeHeld");

    private final long perConnection;
    private final long perNode;
    private final long shedAbove;
    private final AtomicLong total = new AtomicLong();
    private final AtomicLong peakTotal = new AtomicLong();
    private final AtomicLong peakConnection = new AtomicLong();
    private final Set<Held> holders = ConcurrentHashMap.newKeySet();
    private final AtomicBoolean shedding = new AtomicBoolean();

    /** What one connection holds. */
    static final class Held extends AtomicLong {
        final transient Channel ch;

        Held(Channel ch) {
            this.ch = ch;
        }
    }

    /** Whether a frame's bytes were taken, or which bound they would have passed. */
    enum Outcome { TAKEN, CONNECTION_FULL, NODE_FULL }

    /** Budgets of {@code perConnection} bytes per connection and {@code perNode} over all. */
    WriteBudget(long perConnection, long perNode) {
        this.perConnection = perConnection;
        this.perNode = perNode;
        this.shedAbove = perNode - perNode / 4;
    }

    /**
     * The bytes {@code frame} holds while it waits to be written: its bytes (what Netty's outbound
     * buffer keeps is a direct copy of exactly those; the heap buffer it was encoded in, up to twice
     * their size for a large frame, is released when the event loop takes the frame, and a small frame
     * is encoded into a buffer of its exact size) and {@link #FRAME_OVERHEAD}.
     */
    static long cost(ByteBuf frame) {
        return frame.readableBytes() + FRAME_OVERHEAD;
    }

    /**
     * Takes {@code cost} bytes of the budget of the connection that holds {@code h} ({@link #held}) and
     * the node's, unless that passes either bound.
     */
    Outcome take(Held h, long cost) {
        long mine = h.addAndGet(cost);
        if (mine > perConnection) {
            h.addAndGet(-cost);
            return Outcome.CONNECTION_FULL;
        }
        long all = total.addAndGet(cost);
        if (all > perNode) {
            total.addAndGet(-cost);
            h.addAndGet(-cost);
            return Outcome.NODE_FULL;
        }
        raise(peakConnection, mine);
        raise(peakTotal, all);
        return Outcome.TAKEN;
    }

    /** Gives back {@code cost} bytes a frame on the connection that holds {@code h} took: its write ended. */
    void give(Held h, long cost) {
        h.addAndGet(-cost);
        total.addAndGet(-cost);
    }

    /**
     * If the node holds more than three quarters of its bound and no connection is being shed yet,
     * the connection that holds the most, for the caller to close (it is shed until its frames are
     * given back after it closed); else {@code null}.
     */
    Held shed() {
        if (total.get() <= shedAbove || !shedding.compareAndSet(false, true)) {
            return null;
        }
        Held most = null;
        for (Held h : holders) {
            if (h.ch.isActive() && (most == null || h.get() > most.get())) {
                most = h;
            }
        }
        if (most == null) {
            shedding.set(false);
            return null;
        }
        Channel ch = most.ch;
        // once it closed, its frames fail (and give their bytes back) before the next task of its loop
        ch.closeFuture().addListener(f -> ch.eventLoop().execute(() -> shedding.set(false)));
        return most;
    }

    /** The bytes {@code ch} holds to be written. */
    long heldBy(Channel ch) {
        Held h = ch.attr(HELD).get();
        return h == null ? 0 : h.get();
    }

    /** The bytes the node's connections hold to be written now. */
    long total() {
        return total.get();
    }

    /** The most the node's connections held to be written at once. */
    long peakTotal() {
        return peakTotal.get();
    }

    /** The most one connection held to be written at once. */
    long peakConnection() {
        return peakConnection.get();
    }

    /** What {@code ch} holds (the same for the connection's life: a writer looks it up once a frame). */
    Held held(Channel ch) {
        Held h = ch.attr(HELD).get();
        if (h == null) {
            Held fresh = new Held(ch);
            h = ch.attr(HELD).setIfAbsent(fresh);
            if (h == null) {
                h = fresh;
                holders.add(fresh);
                ch.closeFuture().addListener(f -> holders.remove(fresh));
            }
        }
        return h;
    }

    private static void raise(AtomicLong peak, long value) {
        long p = peak.get();
        while (value > p && !peak.compareAndSet(p, value)) {
            p = peak.get();
        }
    }
}
