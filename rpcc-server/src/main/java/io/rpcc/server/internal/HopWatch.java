package io.rpcc.server.internal;

import io.rpcc.core.ChainErrorCode;
import io.rpcc.core.ChainException;
import io.rpcc.core.HopTiming;
import io.rpcc.core.internal.chain.Failovers;
import io.rpcc.core.internal.wire.ChainHeader;
import io.rpcc.core.internal.wire.HopFailure;
import io.rpcc.core.internal.wire.LocatedFailure;
import io.rpcc.server.HopDecorator;
import io.rpcc.server.HopOutcome;
import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Consumer;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * How one decorated hop ends, for its {@link HopDecorator}s' listeners: the outcome the hop's steps
 * record (where the chain went; a failure or a cancel, which no later step undoes), its timing, and
 * what it still waits for before it is done (its thread, its replies' quiet, the frames it sent).
 * The listeners are told once, when nothing is pending any more. {@link #NONE} (no decorators, or a
 * request that is not a hop) records nothing.
 */
final class HopWatch {
    private static final Logger log = LoggerFactory.getLogger(HopWatch.class);

    /** Watches nothing: every method returns at once. */
    static final HopWatch NONE = new HopWatch(null, "");

    private final Executor executor;
    private final String nodeName;
    /** Added to on the hop's thread only, while the decorators run (before anything is pending elsewhere). */
    private final List<HopDecorator.Listener> listeners = new ArrayList<>();
    /** The hop's thread, and each frame or quiet it waits for. */
    private final AtomicInteger pending = new AtomicInteger(1);
    private final AtomicBoolean told = new AtomicBoolean();
    /** Where the chain went from this hop, as its last step said. */
    private volatile HopOutcome went;
    /** A failure, cancel or refusal: final, the first one wins. */
    private final AtomicReference<HopOutcome> settled = new AtomicReference<>();
    private volatile HopTiming timing;
    /** The hop, as it ended on its thread (for the outcome of a hop abandoned by a closing node). */
    private volatile HopState ran;

    /** A watch whose listeners are told on {@code executor}, at node {@code nodeName}. */
    HopWatch(Executor executor, String nodeName) {
        this.executor = executor;
        this.nodeName = nodeName;
    }

    private boolean off() {
        return this == NONE;
    }

    /** Adds the listener of the next decorator (on the hop's thread, while they run). */
    void listen(HopDecorator.Listener listener) {
        listeners.add(listener);
    }

    /** The chain went on from this hop (or ended with its result) as {@code outcome} says. */
    void went(HopOutcome outcome) {
        if (!off()) {
            went = outcome;
        }
    }

    /** The hop failed with {@code failure}, which was reported. */
    void failed(LocatedFailure failure) {
        if (!off()) {
            settled.compareAndSet(null, new HopOutcome.Failed(failure.toException()));
        }
    }

    /** The hop failed with {@code failure} (as its originator sees it). */
    void failed(ChainException failure) {
        if (!off()) {
            settled.compareAndSet(null, new HopOutcome.Failed(failure));
        }
    }

    /** The hop's chain was cancelled before the hop handed it on. */
    void cancelled() {
        if (!off()) {
            settled.compareAndSet(null, new HopOutcome.Cancelled());
        }
    }

    /** The hop was refused with {@code failure}. */
    void refused(LocatedFailure failure) {
        if (!off()) {
            settled.compareAndSet(null, new HopOutcome.Refused(failure.toException()));
        }
    }

    /** The hop's timing, as it joins the chain's timings. */
    void timing(HopTiming t) {
        if (!off()) {
            timing = t;
        }
    }

    /** The hop sent a partial reply: tells the listeners, on this thread. */
    void replied() {
        if (off()) {
            return;
        }
        tellEach("replied", null, HopDecorator.Listener::replied);
    }

    /** Where the router tells the failovers of the requests this hop sends on ({@link Failovers#NONE} if off). */
    Failovers failovers() {
        return off() ? Failovers.NONE : this::failedOver;
    }

    /**
     * A request the hop sends on fails over from endpoint {@code failed} of {@code server} to
     * {@code next}, because of {@code failure}: tells the listeners, on this thread (the one that
     * sends it on).
     */
    void failedOver(String server, InetSocketAddress failed, InetSocketAddress next, HopFailure failure) {
        if (off()) {
            return;
        }
        tellEach("failedOver", null, l -> l.failedOver(server, failed, next, failure));
    }

    /** Waits for {@code step} (a frame the hop sent, written or failed) before the hop is done; returns it. */
    <T> CompletableFuture<T> track(CompletableFuture<T> step) {
        if (off()) {
            return step;
        }
        pending.incrementAndGet();
        step.whenComplete((v, e) -> release());
        return step;
    }

    /**
     * The hop's thread is done with {@code hop} (or with a refused hop, {@code null}): tells the
     * listeners {@code afterRun} on this thread, then waits for the hop's replies to be quiet.
     */
    void ran(HopState hop) {
        if (off()) {
            return;
        }
        tellEach("afterRun", null, HopDecorator.Listener::afterRun);
        if (hop != null) {
            ran = hop;
            track(hop.replies().whenQuiet());
        }
        release();
    }

    private void release() {
        if (pending.decrementAndGet() != 0) {
            return;
        }
        try {
            executor.execute(this::tell);
        } catch (RejectedExecutionException e) { // the node is closing: tell here
            tell();
        }
    }

    private void tell() {
        if (!told.compareAndSet(false, true) || listeners.isEmpty()) {
            return;
        }
        HopOutcome outcome = outcome();
        HopTiming t = timing;
        tellEach("ended", outcome, l -> l.ended(outcome, t));
    }

    /**
     * Tells each listener, the innermost (last added) first, with {@code call}; one that throws is
     * logged, naming the {@code method} it threw from (and its {@code argument}, if any), and the others
     * are told anyway.
     */
    private void tellEach(String method, @Nullable Object argument, Consumer<HopDecorator.Listener> call) {
        for (int i = listeners.size() - 1; i >= 0; i--) {
            try {
                call.accept(listeners.get(i));
            } catch (RuntimeException | Error e) {
                log.warn("a hop decorator's listener {} at '{}' threw from {}({}); ignored", listeners.get(i), nodeName,
                        method, argument == null ? "" : argument, e);
            }
        }
    }

    /** The outcome: abandoned by a closing node, else a failure or cancel, else where the chain went. */
    private HopOutcome outcome() {
        HopState hop = ran;
        if (hop != null && hop.replies().abandoned()) { // the closing node reported the hop as NODE_CLOSED
            ChainHeader h = hop.header();
            return new HopOutcome.Failed(LocatedFailure.detected(ChainErrorCode.NODE_CLOSED, "server '" + nodeName
                    + "' was closed while hop " + h.hop() + " ('" + h.serviceFunction() + "') ran there; the hop was"
                    + " abandoned and may have run in part", nodeName, h.hop(), hop.path()).toException());
        }
        HopOutcome s = settled.get();
        if (s != null) {
            return s;
        }
        LocatedFailure taskFailure = hop == null ? null : hop.replies().taskFailure();
        if (taskFailure != null) { // work the hop started failed after it handed on: the chain fails with that
            return new HopOutcome.Failed(taskFailure.toException());
        }
        if (went != null) {
            return went;
        }
        if (hop != null && hop.control().isCancelled()) { // it stopped when it saw the cancel
            return new HopOutcome.Cancelled();
        }
        String why = "hop ended at '" + nodeName + "' without an outcome";
        log.warn("{}; its decorators are told it failed", why);
        return new HopOutcome.Failed(LocatedFailure.detected(ChainErrorCode.INTERNAL, why, nodeName,
                hop == null ? 0 : hop.header().hop(), hop == null ? List.of() : hop.path()).toException());
    }
}
