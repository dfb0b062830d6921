package io.rpcc.core.internal.chain;

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
import java.util.concurrent.Executor;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The originator's side of chains: the table of chains this node started and is waiting for.
 * A chain's RESULT or ERROR frame may come from any node, on any connection; it completes the
 * chain's future (on the node's executor, never on an event loop). Frames for chains that already
 * ended (timed out) are counted and dropped.
 */
public final class ChainOriginator {
    private final String nodeName;
    private final Executor executor;
    private final ScheduledExecutorService timer;
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
    public ChainOriginator(String nodeName, Executor executor, ScheduledExecutorService timer) {
        this.nodeName = nodeName;
        this.executor = executor;
        this.timer = timer;
    }

    /** Registers a new chain that times out after {@code timeout}. */
    public Pending start(Duration timeout) {
        long id = nextId.incrementAndGet();
        Pending p = new Pending(id, System.nanoTime(), new CompletableFuture<>());
        pending.put(id, p);
        ScheduledFuture<?> timeoutTask = timer.schedule(() -> fail(id, new ChainFailure(
                ErrorCode.TIMEOUT.exceptionName(), "no result within " + timeout.toMillis() + " ms", nodeName, 0,
                List.of(), List.of(), List.of(), List.of()), ErrorCode.TIMEOUT), timeout.toMillis(), TimeUnit.MILLISECONDS);
        p.outcome().whenComplete((r, e) -> timeoutTask.cancel(false));
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
        executor.execute(() -> p.outcome().complete(new Arrival(frame, now)));
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
        ChainException e = code.toException(failure);
        executor.execute(() -> p.outcome().completeExceptionally(e));
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
