package io.rpcc.core.internal.chain;

import io.netty.util.HashedWheelTimer;
import io.netty.util.Timeout;
import io.netty.util.concurrent.DefaultThreadFactory;
import io.rpcc.core.ChainException;
import io.rpcc.core.ChainFailure;
import io.rpcc.core.internal.wire.ChainErrorFrame;
import io.rpcc.core.internal.wire.ChainResultFrame;
import io.rpcc.core.internal.wire.ErrorCode;
import io.rpcc.core.internal.wire.HopFailure;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The originator's side of chains: the table of chains this node started and is waiting for.
 * A chain's RESULT or ERROR frame may come from any node, on any connection; it completes the
 * chain's future on the event loop that read it, so only rpcc's own continuations may be attached
 * to these futures (the client hands results to user code on its executor). Frames for chains that
 * already ended (timed out) are counted and dropped. Timeouts use a timer wheel, so starting a
 * chain wakes no other thread.
 */
public final class ChainOriginator {
    private static final HashedWheelTimer TIMER = new HashedWheelTimer(
            new DefaultThreadFactory("rpcc-timeouts", true), 10, TimeUnit.MILLISECONDS);

    private final String nodeName;
    private final AtomicLong nextId = new AtomicLong();
    private final ConcurrentMap<Long, Pending> pending = new ConcurrentHashMap<>();
    private final AtomicLong lateFrames = new AtomicLong();

    /**
     * A chain in flight, as its originator sees it.
     *
     * @param id the chain's number at this node
     * @param startNanos when it started ({@link System#nanoTime()})
     * @param outcome completes with the RESULT frame, or with a {@link ChainException}
     */
    public record Pending(long id, long startNanos, CompletableFuture<Arrival> outcome) {
    }

    /**
     * A result frame and the time it arrived.
     */
    public record Arrival(ChainResultFrame frame, long arrivedNanos) {
    }

    /** The originator table of node {@code nodeName}. */
    public ChainOriginator(String nodeName) {
        this.nodeName = nodeName;
    }

    /** Registers a new chain that times out after {@code timeout}. */
    public Pending start(Duration timeout) {
        long id = nextId.incrementAndGet();
        Pending p = new Pending(id, System.nanoTime(), new CompletableFuture<>());
        pending.put(id, p);
        Timeout timeoutTask = TIMER.newTimeout(t -> fail(id, new ChainFailure(
                ErrorCode.TIMEOUT.exceptionName(), "no result within " + timeout.toMillis() + " ms", nodeName, 0,
                List.of(), List.of(), List.of(), List.of()), ErrorCode.TIMEOUT), timeout.toNanos(), TimeUnit.NANOSECONDS);
        p.outcome().whenComplete((r, e) -> timeoutTask.cancel());
        return p;
    }

    /** The chain id as users see it: {@code <node>#<number>}. */
    public String chainId(long id) {
        return nodeName + "#" + id;
    }

    /** A RESULT frame arrived (called on an event loop). */
    public void onResult(ChainResultFrame frame) {
        long now = System.nanoTime();
        Pending p = pending.remove(frame.chainId());
        if (p == null) {
            lateFrames.incrementAndGet();
            return;
        }
        p.outcome().complete(new Arrival(frame, now));
    }

    /** An ERROR frame arrived (called on an event loop). */
    public void onError(ChainErrorFrame frame) {
        fail(frame.chainId(), frame.failure(), frame.code());
    }

    /** Ends chain {@code id} with {@code failure}. */
    public void fail(long id, ChainFailure failure, ErrorCode code) {
        Pending p = pending.remove(id);
        if (p == null) {
            lateFrames.incrementAndGet();
            return;
        }
        p.outcome().completeExceptionally(code.toException(failure));
    }

    /** Ends chain {@code id} with a failure detected at this node before the chain's first hop left. */
    public void failLocally(long id, HopFailure f) {
        fail(id, new ChainFailure(f.exceptionName(), f.getMessage(), nodeName, 0, List.of(), f.details(), List.of(),
                List.of()), f.code());
    }

    /** Chains in flight. */
    public int inFlight() {
        return pending.size();
    }

    /** Frames that arrived for chains that had already ended. */
    public long lateFrames() {
        return lateFrames.get();
    }
}
