package io.rpcc.core.internal.chain;

import io.netty.channel.Channel;
import io.netty.util.Timeout;
import io.rpcc.core.BrokenChainException;
import io.rpcc.core.ChainCancelledException;
import io.rpcc.core.ChainErrorCode;
import io.rpcc.core.ChainException;
import io.rpcc.core.Refusal;
import io.rpcc.core.internal.transport.Refusals;
import io.rpcc.core.internal.wire.ChainErrorFrame;
import io.rpcc.core.internal.wire.ChainErrors;
import io.rpcc.core.internal.wire.ChainHeader;
import io.rpcc.core.internal.wire.ChainResultFrame;
import io.rpcc.core.internal.wire.ChainSecret;
import io.rpcc.core.internal.wire.Credit;
import io.rpcc.core.internal.wire.HeartbeatFrame;
import io.rpcc.core.internal.wire.HopFailure;
import io.rpcc.core.internal.wire.LocatedFailure;
import io.rpcc.core.internal.wire.QuietFrame;
import io.rpcc.core.internal.wire.TxFrames;
import io.rpcc.core.internal.wire.ReplyFrame;
import io.rpcc.core.internal.wire.WindowUpdateFrame;
import io.rpcc.core.spi.EngineSpi;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.BiConsumer;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The originator's side of chains: the table of chains this node started. For each, it collects
 * the outcome (the RESULT or ERROR frame), hands partial replies to the chain's {@link ReplySink},
 * and recovers the chain's termination credit from RESULT, ERROR and QUIET frames. A chain is
 * <em>finished</em> when exactly one unit of credit has come home: then no reply of any hop can
 * still be on its way. Frames arrive on event loops, each connection's in order; they are handled
 * at once, in that order, so only rpcc's own continuations may be attached to these futures. Frames
 * for chains that already ended (timed out or cancelled) are counted and dropped. Timeouts use the
 * node's {@link NodeTimer} (a timer wheel), so starting a chain wakes no other thread. Each chain's
 * replies count against its sink's {@link ReplyWindow}, which grants room to the chain's reply streams (WINDOW_UPDATE frames).
 */
@EngineSpi
public final class ChainOriginator {
    private static final Logger log = LoggerFactory.getLogger(ChainOriginator.class);

    /** Where the partial replies of a chain go. Called on an event loop, in arrival order. */
    @FunctionalInterface
    public interface ReplySink {
        /**
         * A partial reply arrived.
         *
         * @param bytes what it costs of the sink's {@link #window()} until it is read (its frame's
         *     length; 0 for replies produced at this node)
         */
        void onReply(Object value, int hop, String host, int bytes);

        /**
         * The flow-control window of this sink's replies, asked once per chain (a sink that reads
         * replies shares its window among the chains that feed it; the default grants without bound).
         */
        default ReplyWindow window() {
            return ReplyWindow.unbounded();
        }
    }

    /** A chain in flight, as its originator sees it. */
    public static final class Pending {
        private final long id;
        private final ChainSecret secret;
        private final int attempt;
        private final ChainSecret attemptSecret;
        /** The highest attempt number given to this chain so far, shared by all its attempts. */
        private final AtomicInteger lastAttempt;
        /** The replies delivered so far to {@link #sink}, shared by the attempts that feed it. */
        private final DeliveredReplies delivered;
        private final long startNanos = System.nanoTime();
        private final CompletableFuture<Arrival> outcome = new CompletableFuture<>();
        private final CompletableFuture<Void> finished = new CompletableFuture<>();
        private final ReplySink sink;
        private final ReplyWindow window;
        private final long budgetNanos;
        private Credit recovered = Credit.ZERO; // guarded by this
        /** Taken out of the table ({@link ChainOriginator#end}): nothing more is delivered to its sink. Guarded by this. */
        private boolean ended;
        private volatile ChainException failedAfterResult;
        private volatile ChainLiveness liveness;
        private volatile boolean expired;
        /** The transaction of an atomic chain, or {@code null}. */
        private volatile AtomicCoordinator.Tx tx;

        private Pending(long id, ChainSecret secret, int attempt, AtomicInteger lastAttempt, DeliveredReplies delivered,
                        long budgetNanos, ReplySink sink) {
            this.id = id;
            this.delivered = delivered;
            this.secret = secret;
            this.attempt = attempt;
            this.attemptSecret = secret.forAttempt(attempt);
            this.lastAttempt = lastAttempt;
            lastAttempt.accumulateAndGet(attempt, Math::max);
            this.budgetNanos = budgetNanos;
            this.sink = sink;
            this.window = sink.window();
        }

        /** What is left of the chain's deadline at {@code nowNanos}, or {@link ChainHeader#NO_DEADLINE}. */
        public long remainingNanos(long nowNanos) {
            return budgetNanos == ChainHeader.NO_DEADLINE ? budgetNanos : budgetNanos - (nowNanos - startNanos);
        }

        /** Whether this node ended the chain at its deadline, before a result came (see {@link ChainOriginator#start}). */
        public boolean expired() {
            return expired;
        }

        /** The chain's number at this node. */
        public long id() {
            return id;
        }

        /** The chain's secret, which every request of it carries (the same in every attempt). */
        ChainSecret secret() {
            return secret;
        }

        /** Which sending of the chain this is: 1, or more for a chain sent again with the same id and secret. */
        public int attempt() {
            return attempt;
        }

        /** The secret of this attempt's frames back. */
        ChainSecret attemptSecret() {
            return attemptSecret;
        }

        /** The transaction of this chain if it is atomic ({@code ChainStart.atomic}), else {@code null}. */
        public AtomicCoordinator.Tx tx() {
            return tx;
        }

        void atomic(AtomicCoordinator.Tx t) {
            this.tx = t;
        }

        /** Whether {@code s} is the secret of an earlier attempt of this chain than this one. */
        private boolean ofEarlierAttempt(ChainSecret s) {
            for (int a = 1; a < attempt; a++) {
                if (secret.forAttempt(a).matches(s)) {
                    return true;
                }
            }
            return false;
        }

        /** When it started ({@link System#nanoTime()}). */
        public long startNanos() {
            return startNanos;
        }

        /** Completes with the RESULT frame, or with a {@link ChainException}. */
        public CompletableFuture<Arrival> outcome() {
            return outcome;
        }

        /**
         * Completes when all credit has come home; fails with a {@link ChainException} on timeout, or
         * when an error arrived after a successful result (work started through a hop's context failed).
         */
        public CompletableFuture<Void> finished() {
            return finished;
        }

        ReplySink sink() {
            return sink;
        }

        /**
         * Watches the chain's heartbeats with {@code watch}: it is declared broken when a branch is
         * silent too long (see {@link ChainOriginator#checkLiveness}).
         */
        public void watchLiveness(ChainLiveness watch) {
            this.liveness = watch;
        }

        /** A frame of the chain arrived: a sign of life. */
        private void heard() {
            ChainLiveness l = liveness;
            if (l != null) {
                l.heard(System.nanoTime());
            }
        }

        /** Adds returned credit; true when the total is exactly one. */
        synchronized boolean recover(Credit credit) {
            recovered = recovered.plus(credit);
            if (recovered.exceedsOne()) {
                log.error("chain #{} recovered more credit than it gave out ({}): a protocol error", id, recovered);
            }
            return recovered.isOne();
        }
    }

    /** A result frame and the time it arrived. */
    public record Arrival(ChainResultFrame frame, long arrivedNanos) {
    }

    private final String nodeName;
    private final AtomicLong nextId = new AtomicLong();
    private final ConcurrentMap<Long, Pending> pending = new ConcurrentHashMap<>();
    private final AtomicLong lateFrames = new AtomicLong();
    private final AtomicLong lateHeartbeats = new AtomicLong();
    private final AtomicLong broken = new AtomicLong();
    private final AtomicLong earlierAttemptFrames = new AtomicLong();
    private final AtomicLong retransmissions = new AtomicLong();
    private final AtomicLong repliesSentAgain = new AtomicLong();
    private final AtomicLong repliesReceived = new AtomicLong();
    private final AtomicLong replyBytesReceived = new AtomicLong();
    private final Refusals refusals;
    private final BiConsumer<Channel, Object> send;
    private final Runnable ended;
    private final NodeTimer timer;
    private final AtomicCoordinator atomic;
    private volatile Supplier<ChainException> closedWith;

    /**
     * The originator table of node {@code nodeName}, counting forged frames in {@code refusals},
     * sending reply-window grants with {@code send}, running {@code ended} whenever a chain ends and
     * timing chains out on {@code timer} (the node's, open while the node runs).
     */
    public ChainOriginator(String nodeName, Refusals refusals, BiConsumer<Channel, Object> send, Runnable ended,
                           NodeTimer timer) {
        this.nodeName = nodeName;
        this.refusals = refusals;
        this.send = send;
        this.ended = ended;
        this.timer = timer;
        this.atomic = new AtomicCoordinator(nodeName);
    }

    /** The name of the node whose chains these are. */
    public String nodeName() {
        return nodeName;
    }

    /** The coordinator of the atomic chains this node starts. */
    public AtomicCoordinator atomic() {
        return atomic;
    }

    /**
     * Ends every chain in flight at once with {@code why} (their futures and reply sets complete
     * now) and refuses new ones with it. Called when the node closes.
     */
    public void close(Supplier<ChainException> why) {
        if (closedWith != null) {
            return;
        }
        closedWith = why;
        for (Pending p : pending.values()) {
            fail(p, why.get());
        }
    }

    /**
     * Registers a new chain whose replies go to {@code sink}, that times out after {@code timeout} and
     * whose hops have {@code budgetNanos} to start in (or {@link ChainHeader#NO_DEADLINE}); on a closed
     * node, the chain has ended already with the reason the node closed. A budget shorter than the
     * timeout comes from the call's deadline: if no result has come when it runs out, the chain ends
     * then with a {@code DeadlineExceededException} ({@link Pending#expired()}).
     */
    public Pending start(Duration timeout, long budgetNanos, ReplySink sink) {
        return register(new Pending(nextId.incrementAndGet(), ChainSecret.random(), 1, new AtomicInteger(),
                new DeliveredReplies(), budgetNanos,
                sink), timeout);
    }

    /**
     * Registers a new run of chain {@code of} as its next attempt (same id and secret, so that the
     * servers know it as the same chain: their trails and outcome caches), which must have ended here
     * (it broke): the interactive run that diagnoses a broken chain, one step at a time, every step
     * registered with this as attempt {@code of.attempt() + 1}. Frames of {@code of}'s attempt that
     * arrive during the diagnosis are dropped as an earlier attempt's. Otherwise as {@link #start}.
     *
     * @throws IllegalStateException if {@code of} has not ended, or was attempt {@link ChainHeader#MAX_ATTEMPTS}
     */
    public Pending restart(Pending of, Duration timeout, long budgetNanos, ReplySink sink) {
        checkEnded(of);
        of.window.forgetChain(of.id()); // what the broken attempt's reply streams hold is not coming
        return register(new Pending(of.id(), of.secret(), of.attempt() + 1, of.lastAttempt,
                deliveredFor(of, sink), budgetNanos, sink),
                timeout);
    }

    /**
     * Registers the next attempt of chain {@code earlier} (paper 3.9: a broken chain sent again, with
     * the same id and secret, so that the servers replay the outcomes they cached for it), which must
     * have ended here: numbered after every attempt of the chain so far, a diagnosis's included. Its frames back carry the new attempt's secret: frames of earlier attempts that
     * arrive now are dropped and counted ({@link #earlierAttemptFrames()}). Otherwise as {@link #start}.
     *
     * @throws IllegalStateException if {@code earlier} has not ended, or was attempt {@link ChainHeader#MAX_ATTEMPTS}
     */
    public Pending retransmit(Pending earlier, Duration timeout, long budgetNanos, ReplySink sink) {
        checkEnded(earlier);
        earlier.window.forgetChain(earlier.id()); // what the earlier attempt's reply streams hold is not coming
        retransmissions.incrementAndGet();
        return register(new Pending(earlier.id(), earlier.secret(), earlier.lastAttempt.get() + 1, earlier.lastAttempt,
                deliveredFor(earlier, sink), budgetNanos, sink), timeout);
    }

    /**
     * The replies a new attempt of {@code earlier} feeding {@code sink} counts as delivered: those of
     * {@code earlier} if it fed the same sink (a retry, a diagnosis into the same reply set), else
     * none (a new call, such as the application's retransmission, whose result has none of them yet).
     */
    private static DeliveredReplies deliveredFor(Pending earlier, ReplySink sink) {
        return earlier.sink == sink ? earlier.delivered : new DeliveredReplies();
    }

    private void checkEnded(Pending earlier) {
        if (pending.get(earlier.id()) == earlier) {
            throw new IllegalStateException("chain " + chainId(earlier.id()) + " has not ended: it cannot be sent again");
        }
        if (earlier.lastAttempt.get() >= ChainHeader.MAX_ATTEMPTS) {
            throw new IllegalStateException("chain " + chainId(earlier.id()) + " was sent " + earlier.lastAttempt.get()
                    + " times, the most there can be");
        }
    }

    private Pending register(Pending p, Duration timeout) {
        long id = p.id();
        if (pending.putIfAbsent(id, p) != null) {
            throw new IllegalStateException("chain " + chainId(id) + " is in flight: it cannot be sent again");
        }
        Supplier<ChainException> closed = closedWith;
        if (closed != null) { // checked after the put: either this or close() ends the chain
            fail(p, closed.get());
            return p;
        }
        Timeout timeoutTask;
        try {
            timeoutTask = timer.newTimeout(t -> timeOut(p, timeout), timeout.toNanos(), TimeUnit.NANOSECONDS);
        } catch (IllegalStateException stopped) { // the node closed meanwhile
            fail(p, closedWith.get());
            return p;
        }
        long budget = p.budgetNanos;
        Timeout deadlineTask = null;
        // (a chain with no budget left is not sent: its launcher fails it at once, naming hop 1; a deadline
        // timer of 0 ns would race that failure and could name hop 0)
        if (budget != ChainHeader.NO_DEADLINE && budget > 0 && budget < timeout.toNanos()) {
            try {
                deadlineTask = timer.newTimeout(t -> expire(p), Math.max(0, p.remainingNanos(System.nanoTime())),
                        TimeUnit.NANOSECONDS);
            } catch (IllegalStateException stopped) { // the node closed meanwhile: the timeout's failure ends it
                deadlineTask = null;
            }
        }
        Timeout deadlineTimer = deadlineTask;
        p.finished().whenComplete((r, e) -> {
            timeoutTask.cancel();
            if (deadlineTimer != null) {
                deadlineTimer.cancel();
            }
            ended.run(); // (it has left the table by now: a draining node looks again)
        });
        return p;
    }

    /**
     * Chain {@code p} reached its deadline: if no result came, it ends now with a
     * {@code DeadlineExceededException} (the caller sends the cancel after its hops); one whose result
     * came waits for its partial replies until the timeout.
     */
    private void expire(Pending p) {
        if (p.outcome().isDone() || pending.get(p.id()) != p) {
            return;
        }
        p.expired = true;
        long budgetMillis = TimeUnit.NANOSECONDS.toMillis(p.budgetNanos);
        fail(p, LocatedFailure.detected(ChainErrorCode.DEADLINE_EXCEEDED,
                "chain " + chainId(p.id()) + " did not end by its deadline, " + budgetMillis + " ms after it was "
                + "sent; its hops were told to stop, and none starts after the deadline: give the chain a later "
                + "deadline (ChainCall.deadline or timeout), or make its hops faster", nodeName, 0, List.of())
                .toException());
    }

    /**
     * Ends attempt {@code p}, whose outcome has failed, without waiting for the rest of its credit:
     * it is about to be sent again ({@link #retransmit}), and the frames it still has on the way are
     * late. {@code false} if it had ended.
     */
    public boolean supersede(Pending p) {
        if (!end(p)) {
            return false;
        }
        p.finished().complete(null);
        return true;
    }

    private void fail(Pending p, ChainException why) {
        if (end(p)) {
            p.outcome().completeExceptionally(why);
            p.finished().completeExceptionally(why);
        }
    }

    private void timeOut(Pending p, Duration timeout) {
        if (p.tx != null && p.tx.committed()) { // committed: some voter did not acknowledge in time; the outcome stands
            if (end(p)) {
                log.warn("atomic chain {} committed, but not every server acknowledged it within the timeout",
                        chainId(p.id()));
                p.finished().complete(null);
            }
            return;
        }
        if (end(p)) {
            ChainLiveness l = p.liveness;
            // with heartbeats on, where it was last heard of: alive but slow, or lost on its way
            String heard = l == null ? "" : "; " + l.lastHeardOf(System.nanoTime());
            ChainException e = LocatedFailure.detected(ChainErrorCode.TIMEOUT,
                    (p.outcome().isDone() ? "result arrived but not every partial reply within "
                            : "no result within ") + timeout.toMillis() + " ms" + (p.attempt() > 1 ? " (attempt "
                            + p.attempt() + ", sent again after the earlier ones failed, within what was left of the"
                            + " call's timeout)" : "") + heard, nodeName, 0, List.of()).toException();
            p.outcome().completeExceptionally(e);
            p.finished().completeExceptionally(e);
        }
    }

    /**
     * Ends chain {@code p} at once with a {@link ChainCancelledException}; whatever
     * arrives for it later is a late frame. Returns {@code false} if it had already ended.
     */
    public boolean cancel(Pending p, String why) {
        // an atomic chain is aborted first, in one step with the check that it has not decided to commit (a
        // check, then end(p), would let a commit decided in between go out while the caller is told "cancelled")
        if (p.tx != null && !atomic.endedUndecided(p.tx, "cancelled by its originator (" + why + ")")) {
            return false; // an atomic chain decided to commit: too late to cancel (it waits for its acknowledgements)
        }
        if (!end(p)) {
            return false;
        }
        ChainException e = LocatedFailure.detected(ChainErrorCode.CANCELLED,
                "chain " + chainId(p.id()) + " was cancelled by its originator (" + why + "); its hops were told to stop",
                nodeName, 0, List.of()).toException();
        p.outcome().completeExceptionally(e);
        p.finished().completeExceptionally(e);
        return true;
    }

    /** The chain id as users see it: {@code <node>#<number>}. */
    public String chainId(long id) {
        return nodeName + "#" + id;
    }

    /** A RESULT frame arrived on connection {@code from} (called on an event loop). */
    public void onResult(ChainResultFrame frame, Channel from) {
        Pending p = live(frame.chainId(), frame.secret(), from);
        if (p != null) {
            p.heard();
            Arrival a = new Arrival(frame, System.nanoTime());
            if (p.tx != null) {
                p.tx.result(a); // the outcome is the decision's, at the chain's end
            } else {
                p.outcome().complete(a);
            }
            recover(p, frame.credit());
        }
    }

    /**
     * An ERROR frame arrived (called on an event loop). It may come after the RESULT (work that a
     * hop started through its context failed): the chain then ends partial with that error.
     */
    public void onError(ChainErrorFrame frame, Channel from) {
        Pending p = live(frame.chainId(), frame.secret(), from);
        if (p != null) {
            p.heard();
            ChainLiveness l = p.liveness;
            if (l != null && frame.failure().host() != null) {
                l.failed(frame.failure().hop(), frame.failure().host(), System.nanoTime());
            }
            ChainException e = ChainErrors.toException(frame.code(), frame.failure());
            if (p.tx != null) {
                p.tx.failed(e); // the transaction aborts at the chain's end
            } else if (!p.outcome().completeExceptionally(e) && !p.outcome().isCompletedExceptionally()
                    && p.failedAfterResult == null) {
                p.failedAfterResult = e;
            }
            recover(p, frame.credit());
        }
    }

    /** A partial reply arrived on connection {@code from} (called on an event loop). */
    public void onReply(ReplyFrame frame, Channel from) {
        Pending p = live(frame.chainId(), frame.secret(), from);
        if (p == null) {
            return;
        }
        synchronized (p) { // not while the chain ends on another thread (a cancel, a timeout): see end(p)
            if (p.ended) { // it ended after live() found it: this reply was still on its way, and is late
                lateFrames.incrementAndGet();
                return;
            }
            ChainLiveness l = p.liveness;
            if (l != null) {
                l.replied(frame.branch(), frame.hop(), frame.host(), System.nanoTime());
            }
            p.window.arrived(frame.chainId(), frame.stream(), from, frame.size());
            if (frame.decodeError() != null) {
                p.window.consumed(frame.size());
                HopFailure f = frame.decodeError();
                p.outcome().completeExceptionally(f.located(nodeName, frame.hop(), List.of()).toException());
                return;
            }
            if (!p.delivered.firstTime(frame.branch(), frame.hop(), frame.host(), frame.seq())) {
                // sent again by a hop replayed (or run again) for a later attempt of the chain: delivered before
                p.window.consumed(frame.size());
                repliesSentAgain.incrementAndGet();
                return;
            }
            repliesReceived.incrementAndGet();
            replyBytesReceived.addAndGet(frame.size());
            if (p.tx != null && p.tx.hold(frame.value(), frame.hop(), frame.host(), frame.size())) {
                return; // an atomic chain's replies are delivered once it commits (their room stays taken till then)
            }
            p.sink().onReply(frame.value(), frame.hop(), frame.host(), frame.size());
        }
    }

    /**
     * A reply stream of one of this node's chains gave room back and may wait for more (called on an
     * event loop); grants go back on {@code from}. Updates for chains that have ended are dropped
     * without being counted as late: room a stream gives back may cross the chain's end.
     */
    public void onWindowUpdate(WindowUpdateFrame frame, Channel from) {
        Pending p = pending.get(frame.chainId());
        if (p == null || !p.attemptSecret.matches(frame.secret())) {
            if (p != null && p.ofEarlierAttempt(frame.secret())) {
                // a stream of an attempt that was sent again: room for what it waits to send, outside the
                // window (its replies are dropped when they arrive), so that it ends now rather than wait
                earlierAttemptFrames.incrementAndGet();
                lateFrames.incrementAndGet();
                if (frame.wantBytes() > 0) {
                    send.accept(from, new WindowUpdateFrame(frame.chain(), frame.stream(), true, 1,
                            frame.wantBytes(), 0));
                }
            } else if (p != null || frame.chainId() < 1 || frame.chainId() > nextId.get()) {
                refusals.countFrame(Refusal.FORGED_FRAME, from);
            }
            return;
        }
        p.window.update(frame.chainId(), frame.stream(), from, frame.replies(), frame.bytes(), frame.wantBytes(),
                (replies, bytes) -> send.accept(from, new WindowUpdateFrame(frame.chain(), frame.stream(), true,
                        replies, bytes, 0)));
    }

    /** A hop returned its credit, on connection {@code from} (called on an event loop). */
    public void onQuiet(QuietFrame frame, Channel from) {
        Pending p = live(frame.chainId(), frame.secret(), from);
        if (p != null) {
            ChainLiveness l = p.liveness;
            if (l != null) {
                l.quiet(frame.branch(), frame.hop(), frame.host(), System.nanoTime());
            }
            recover(p, frame.credit());
        }
    }

    /**
     * A heartbeat arrived on connection {@code from} (called on an event loop): the chain is alive on
     * its branch. Heartbeats of chains that ended, or of an earlier attempt of a chain sent again, are
     * dropped and counted ({@link #lateHeartbeats()}; the latter in {@link #earlierAttemptFrames()} too);
     * forged ones are counted as forged frames, held against {@code from}.
     */
    public void onHeartbeat(HeartbeatFrame frame, Channel from) {
        Pending p = pending.get(frame.chainId());
        if (p != null && p.attemptSecret.matches(frame.secret())) {
            ChainLiveness l = p.liveness;
            if (l != null) {
                l.heartbeat(frame, System.nanoTime());
            }
        } else if (p != null && p.ofEarlierAttempt(frame.secret())) { // keeps no later attempt alive
            earlierAttemptFrames.incrementAndGet();
            lateHeartbeats.incrementAndGet();
        } else if (p != null || frame.chainId() < 1 || frame.chainId() > nextId.get()) {
            refusals.countFrame(Refusal.FORGED_FRAME, from);
        } else {
            lateHeartbeats.incrementAndGet();
        }
    }

    /**
     * Declares broken, at {@code nowNanos}, every chain of which a part has been silent for longer
     * than its broken-after time (see {@link ChainLiveness}): a branch holding a chain whose outcome
     * has not arrived, or a hop owing replies, also after the outcome arrived. The chain ends at once
     * with a {@link BrokenChainException} naming where it was last heard of (no cancel is sent:
     * whoever diagnoses or retries the chain reuses its id); if its result had arrived, the result
     * stands and the chain ends partial with that exception.
     */
    public void checkLiveness(long nowNanos) {
        for (Pending p : pending.values()) {
            ChainLiveness l = p.liveness;
            if (l == null) {
                continue;
            }
            ChainLiveness.Silence silence = l.silent(nowNanos, p.outcome().isDone());
            if (silence != null && end(p)) {
                broken.incrementAndGet();
                BrokenChainException e = brokenChain(p, silence, l.brokenAfterNanos());
                p.outcome().completeExceptionally(e);
                p.finished().completeExceptionally(e);
            }
        }
    }

    private BrokenChainException brokenChain(Pending p, ChainLiveness.Silence s, long brokenAfterNanos) {
        if (s.owedReplies()) {
            String what = s.heard() ? "hop " + s.hop() + " on '" + s.host() + "', which owed the chain partial replies"
                    + " (and its share of the chain's credit), sent neither a reply nor a heartbeat for "
                    : "nothing of the chain arrived for ";
            String last = s.heard() ? "" : " while a hop still owed it partial replies (its credit is out; last heard"
                    + " of: hop " + s.hop() + " on '" + s.host() + "')";
            String message = "chain " + chainId(p.id()) + " is broken" + (p.outcome().isDone()
                    ? " after its " + (p.outcome().isCompletedExceptionally() ? "error" : "result") + " arrived" : "")
                    + ": " + what + TimeUnit.NANOSECONDS.toMillis(s.silentNanos()) + " ms (broken after "
                    + TimeUnit.NANOSECONDS.toMillis(brokenAfterNanos) + " ms)" + last + ". The node crashed, was cut off "
                    + "or stalls, and the replies it had not sent are lost: check that it runs and can be reached, "
                    + "then run the chain again if you need every reply";
            return new BrokenChainException(LocatedFailure.detected(ChainErrorCode.BROKEN_CHAIN, message,
                    s.host() == null ? nodeName : s.host(), Math.max(0, s.hop()), List.of()).failure());
        }
        String where = s.branch().isRoot() ? "the chain" : "its branch " + s.branch();
        String last = s.heard() ? "it was last heard of at hop " + s.hop() + " on '" + s.host() + "'"
                : s.branch().isRoot() ? "it never sent one since it was sent to '" + s.host() + "' for hop " + (s.hop() + 1)
                : "it never sent one since the split after hop " + s.hop() + " (last heard of on '" + s.host() + "')";
        String message = "chain " + chainId(p.id()) + " is broken: " + where + " sent no heartbeat for "
                + TimeUnit.NANOSECONDS.toMillis(s.silentNanos()) + " ms (broken after "
                + TimeUnit.NANOSECONDS.toMillis(brokenAfterNanos) + " ms); " + last + ". The node holding it crashed, "
                + "was cut off or stalls: check that it runs and can be reached, then run the chain again";
        return new BrokenChainException(LocatedFailure.detected(ChainErrorCode.BROKEN_CHAIN, message,
                s.host() == null ? nodeName : s.host(), Math.max(0, s.hop()), List.of()).failure());
    }

    /** Heartbeats that arrived for chains that had already ended. */
    public long lateHeartbeats() {
        return lateHeartbeats.get();
    }

    /** Chains declared broken (their heartbeats stopped). */
    public long brokenChains() {
        return broken.get();
    }

    /**
     * The live chain {@code id} if {@code secret} is its secret. A frame with the wrong secret, or
     * for an id never issued, is forged: it is dropped and counted, and held against connection
     * {@code from} (if not {@code null}), which is closed past its allowance of bad frames. A frame for a chain that ended
     * (timed out) is late: dropped and counted too (its secret cannot be checked any more).
     */
    private Pending live(long id, ChainSecret secret, Channel from) {
        Pending p = pending.get(id);
        if (p != null && p.attemptSecret.matches(secret)) {
            return p;
        }
        if (p != null && p.ofEarlierAttempt(secret)) { // a late frame of an attempt this one replaced
            earlierAttemptFrames.incrementAndGet();
            lateFrames.incrementAndGet();
        } else if (p != null || id < 1 || id > nextId.get()) {
            refusals.countFrame(Refusal.FORGED_FRAME, from);
        } else {
            lateFrames.incrementAndGet();
        }
        return null;
    }

    /**
     * Takes chain {@code p} out of the table, if it is still there: the one way a chain ends, however it
     * ends (its credit home, a cancel, a timeout, a deadline, a break, the node closing). Under
     * {@code p}'s lock, so that a reply that {@link #onReply} is delivering on an event loop is either
     * in the sink before the chain ends, or dropped as late: never delivered after the end, when a
     * cancel or a timeout on another thread ends the chain while its replies are still arriving.
     *
     * @return whether this call ended it
     */
    private boolean end(Pending p) {
        synchronized (p) {
            if (!pending.remove(p.id(), p)) {
                return false;
            }
            p.ended = true;
        }
        if (p.tx != null) { // (a no-op if it was decided)
            atomic.endedUndecided(p.tx, "the chain ended at its originator before it could commit (cancelled, "
                    + "timed out, past its deadline, or its originator closed)");
            for (AtomicCoordinator.Held h : p.tx.takeHeld()) { // dropped: their room goes back
                p.window.consumed(h.bytes());
            }
        }
        return true;
    }

    /**
     * All the credit of atomic chain {@code p} is home, its votes with it: the originator decides.
     * A commit completes the chain's outcome now and ends the chain when every voter has acknowledged
     * (their held partial replies arrive before); an abort ends it now with a
     * {@link io.rpcc.core.TransactionAbortedException}.
     */
    private void decide(Pending p) {
        AtomicCoordinator.Decision d = atomic.decide(p.tx, p.failedAfterResult, () -> "atomic chain " + chainId(p.id()));
        if (d.commit()) {
            synchronized (p) { // (as onReply delivers: never after the chain ended)
                if (!p.ended) {
                    for (AtomicCoordinator.Held h : p.tx.takeHeld()) {
                        p.sink().onReply(h.value(), h.hop(), h.host(), h.bytes());
                    }
                }
            }
            p.outcome().complete(p.tx.arrival());
            p.tx.forgetOutcome();
            p.tx.acked().whenComplete((v, e) -> {
                if (end(p)) {
                    p.finished().complete(null);
                }
            });
        } else {
            fail(p, d.abort());
            p.tx.forgetOutcome();
        }
    }

    /**
     * A frame of an atomic chain's commit protocol for a chain this node started, read from
     * {@code from} (called on an event loop): a VOTE (with credit), a WOUND or a DECIDE_ACK.
     */
    public void onTransaction(TxFrames.TxFrame frame, Channel from) {
        switch (frame) {
            case TxFrames.Vote v -> {
                Pending p = pending.get(v.chainId());
                if (p != null && p.tx != null && p.attemptSecret.matches(v.secret())) {
                    p.heard();
                    atomic.vote(p.tx, v, from);
                    recover(p, v.credit());
                } else if (p == null && v.chainId() >= 1 && v.chainId() <= nextId.get()
                        || p != null && p.ofEarlierAttempt(v.secret())) {
                    lateFrames.incrementAndGet();
                    atomic.lateVote(v, from);
                } else {
                    refusals.countFrame(Refusal.FORGED_FRAME, from);
                }
            }
            case TxFrames.Wound w -> {
                Pending p = live(w.chainId(), w.secret(), from);
                if (p != null && p.tx != null && atomic.wound(p.tx, w)) {
                    fail(p, atomic.woundedException(p.tx, "atomic chain " + chainId(p.id())));
                }
            }
            case TxFrames.DecideAck a -> {
                if (!atomic.ack(a)) {
                    refusals.countFrame(Refusal.FORGED_FRAME, from);
                }
            }
            case TxFrames.Query q -> {
                Pending p = pending.get(q.chainId());
                if (p != null && p.tx != null && p.attemptSecret.matches(q.secret())
                        && !AtomicCoordinator.decided(p.tx)) {
                    return; // the chain still runs: its decision comes at its end
                }
                atomic.answer(q, d -> send.accept(from, d));
            }
            case TxFrames.Decide d -> refusals.countFrame(Refusal.FORGED_FRAME, from); // (goes to participants)
        }
    }

    private void recover(Pending p, Credit credit) {
        if (!p.recover(credit)) {
            return;
        }
        if (p.tx != null) {
            decide(p);
            return;
        }
        if (end(p)) {
            ChainException late = p.failedAfterResult;
            if (late == null) {
                p.finished().complete(null);
            } else {
                p.finished().completeExceptionally(late);
            }
        }
    }

    /**
     * Ends chain {@code id} with a failure detected at this node before its first hop left: no
     * credit left this node, so the chain is finished at once.
     */
    public void failLocally(long id, HopFailure f) {
        Pending p = pending.get(id);
        if (p == null || !end(p)) {
            return;
        }
        p.outcome().completeExceptionally(f.located(nodeName, 0, List.of()).toException());
        p.finished().complete(null);
    }

    /**
     * As {@link #failLocally(long, HopFailure)}, for a failure of hop {@code hop} at {@code host}
     * (after {@code path}) found here before the hop was sent.
     */
    public void failLocally(long id, HopFailure f, int hop, String host, List<String> path) {
        Pending p = pending.get(id);
        if (p == null || !end(p)) {
            return;
        }
        List<String> through = new java.util.ArrayList<>(path);
        through.add(host);
        p.outcome().completeExceptionally(f.located(host, hop, through).toException());
        p.finished().complete(null);
    }

    /** Chains in flight. */
    public int inFlight() {
        return pending.size();
    }

    /** Frames that arrived for chains that had already ended (timed out or cancelled), or for an earlier attempt. */
    public long lateFrames() {
        return lateFrames.get();
    }

    /**
     * Frames of an earlier attempt of a chain that arrived while a later attempt of it was in flight
     * (dropped; counted in {@link #lateFrames()} too).
     */
    public long earlierAttemptFrames() {
        return earlierAttemptFrames.get();
    }

    /** Chains sent again ({@link #retransmit}). */
    public long retransmissions() {
        return retransmissions.get();
    }

    /**
     * Partial replies that arrived again for a later attempt of their chain (a replayed hop sends its
     * replies again) after they had been delivered: dropped.
     */
    public long repliesSentAgain() {
        return repliesSentAgain.get();
    }

    /** Partial replies that arrived from other nodes and were delivered, each once. */
    public long repliesReceived() {
        return repliesReceived.get();
    }

    /** The bytes of the frames of the replies counted in {@link #repliesReceived()}. */
    public long replyBytesReceived() {
        return replyBytesReceived.get();
    }
}
