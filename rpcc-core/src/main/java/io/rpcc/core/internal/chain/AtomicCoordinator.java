package io.rpcc.core.internal.chain;

import io.netty.channel.Channel;
import io.rpcc.core.ChainErrorCode;
import io.rpcc.core.ChainException;
import io.rpcc.core.ChainFailure;
import io.rpcc.core.FailureFields;
import io.rpcc.core.TransactionAbortedException;
import io.rpcc.core.internal.wire.ChainErrors;
import io.rpcc.core.internal.wire.ChainSecret;
import io.rpcc.core.internal.wire.NodeAddress;
import io.rpcc.core.internal.wire.TxFrames;
import io.rpcc.core.internal.wire.TxKey;
import io.rpcc.core.internal.wire.TxStamp;
import io.rpcc.core.spi.EngineSpi;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Supplier;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The originator's side of atomic chains (two-phase commit, with the chain's own termination as the
 * first phase): stamps each atomic chain ({@link TxStamp}: its originator's primary, or a standard
 * transaction stamped with this node's Lamport clock), collects the VOTEs its hops send, decides at the
 * chain's end (commit if it ended with a result, every vote was yes and no WOUND came first), sends
 * the decision to every voter (on the connection its vote came on, so that a decision made on that
 * connection's event loop is written without a hand-off), sends it again from the node's periodic
 * sweep until it is acknowledged, and aborts an attempt that an older transaction wounded so that
 * its caller can start it again with the same stamp.
 *
 * <p>One {@link Call} is one {@code ChainCall.atomic()} across its restarts; each attempt of it is a
 * {@link Tx}, a chain of its own (a new chain id and secret, the call's stamp): the attempt's key is
 * {@link TxKey} (this node, the chain id, its attempt number). Thread-safe.
 */
@EngineSpi
public final class AtomicCoordinator {
    private static final Logger log = LoggerFactory.getLogger(AtomicCoordinator.class);
    /** How often a DECIDE is sent to a voter, at most, before the originator stops waiting for its DECIDE_ACK. */
    static final int DECIDE_SENDS = 8;
    /**
     * The wait before the first resend of a DECIDE; each next wait is twice as long (0.25 s to 32 s: a
     * minute in all). Resends go out from the node's periodic sweep ({@link #resendDue}), so each wait
     * is up to one sweep period longer; no timer is set per decision.
     */
    static final long FIRST_RESEND_MILLIS = 250;

    /** Sends a frame to a node. */
    @FunctionalInterface
    public interface Sender {
        /**
         * Sends {@code frame} to {@code to}: on connection {@code via} if it is an open connection to
         * that node (the one its vote came on), else on this node's connection to its address;
         * completes when written.
         */
        CompletableFuture<Void> send(@Nullable Channel via, NodeAddress to, Object frame);
    }

    private final String nodeName;
    private final long origin;
    private final AtomicLong clock = new AtomicLong();
    private volatile Sender sender = (via, to, frame) -> CompletableFuture.failedFuture(
            new IllegalStateException("the node has not started"));
    /** Outstanding calls, oldest first; guarded by itself. */
    private final LinkedHashSet<Call> outstanding = new LinkedHashSet<>();
    /** The Lamport time of the last commit of a primary; guarded by {@link #outstanding}. */
    private long lastPrimaryCommit;
    /** How many decisions are remembered, for the QUERY of a participant that did not hear its decision. */
    static final int DECISIONS_REMEMBERED = 65_536;
    /**
     * The last decisions, by chain id; guarded by itself. Each is kept as a {@link Decided} (secret,
     * attempt, outcome), not as its attempt: the attempt's voters, futures and connections are garbage
     * once it ended.
     */
    private final Map<Long, Decided> decided = new LinkedHashMap<>(256, 0.75f, false) {
        @Override
        protected boolean removeEldestEntry(Map.Entry<Long, Decided> eldest) {
            return size() > DECISIONS_REMEMBERED;
        }
    };

    /** A remembered decision: the attempt's secret and number, whether it committed, and why not. */
    private record Decided(ChainSecret secret, int attempt, boolean commit, @Nullable String why) {
    }
    /** Decided attempts whose voters have not all acknowledged, by chain id. */
    private final ConcurrentHashMap<Long, Tx> awaitingAcks = new ConcurrentHashMap<>();
    private final AtomicLong commits = new AtomicLong();
    private final AtomicLong aborts = new AtomicLong();
    private final AtomicLong wounds = new AtomicLong();
    private final AtomicLong restarts = new AtomicLong();
    private final AtomicLong lateVotes = new AtomicLong();
    private final AtomicLong unacknowledged = new AtomicLong();

    /** The coordinator of node {@code nodeName}. */
    AtomicCoordinator(String nodeName) {
        this.nodeName = nodeName;
        // the node's name and this incarnation: a restarted node's stamps are not an earlier one's
        this.origin = nodeName.hashCode() * 0x9E37_79B9_7F4A_7C15L ^ ThreadLocalRandom.current().nextLong();
    }

    /** Sends the coordinator's frames with {@code s} (set when the node starts). */
    public void sendWith(Sender s) {
        this.sender = s;
    }

    /** This node's Lamport clock. */
    public long clock() {
        return clock.get();
    }

    /** Moves the Lamport clock to at least {@code order} (a stamp or a clock seen from another node). */
    public long observe(long order) {
        return clock.accumulateAndGet(order, Math::max);
    }

    /** One atomic call, across its restarts: its stamp and its place among this node's outstanding calls. */
    public static final class Call {
        private volatile TxStamp stamp;

        private Call(TxStamp stamp) {
            this.stamp = stamp;
        }

        /** The stamp its next attempt carries. */
        public TxStamp stamp() {
            return stamp;
        }
    }

    /** A voter of an attempt: where it is, how it voted, and whether it acknowledged the decision. */
    private static final class Voter {
        final NodeAddress address;
        /** The connection its last vote came on (its decision goes back on it while it is open), or null. */
        @Nullable Channel via;
        boolean yes = true;
        @Nullable String why;
        int hop;
        long held;
        /** Whether the decision was sent to it (a voter heard of after the fan-out is not waited for). */
        boolean told;
        boolean acked;

        Voter(NodeAddress address) {
            this.address = address;
        }
    }

    /** One attempt of an atomic call: one transaction. Its fields are guarded by it. */
    public static final class Tx {
        private final Call call;
        private final TxStamp stamp;
        private final long chainId;
        private final ChainSecret secret;
        private final int attempt;
        private final Map<String, Voter> voters = new LinkedHashMap<>();
        private final CompletableFuture<Void> acked = new CompletableFuture<>();
        /** Voters told the decision that have not acknowledged it. */
        private int unacked;
        /** How often the decision was sent, and when it is sent again if some voter has not acknowledged it. */
        private int sends;
        private long resendAtNanos;
        private ChainOriginator.@Nullable Arrival arrival;
        private @Nullable ChainException failure;
        private @Nullable String woundedBy;
        private @Nullable String woundedAt;
        private @Nullable Boolean decision;
        private @Nullable String why;
        /** Partial replies that arrived, held until the decision (delivered on commit, dropped on abort). */
        private @Nullable List<Held> held = new ArrayList<>();

        private Tx(Call call, TxStamp stamp, long chainId, ChainSecret secret, int attempt) {
            this.call = call;
            this.stamp = stamp;
            this.chainId = chainId;
            this.secret = secret;
            this.attempt = attempt;
        }

        /** The stamp this attempt's hops carry. */
        public TxStamp stamp() {
            return stamp;
        }

        /** The call it is an attempt of. */
        public Call call() {
            return call;
        }

        /** Whether an older transaction wounded it before it decided (its call may start again). */
        public synchronized boolean wounded() {
            return woundedBy != null;
        }

        /** Whether it was decided to commit. */
        public synchronized boolean committed() {
            return Boolean.TRUE.equals(decision);
        }

        synchronized void result(ChainOriginator.Arrival a) {
            if (arrival == null) {
                arrival = a;
            }
        }

        synchronized ChainOriginator.@Nullable Arrival arrival() {
            return arrival;
        }

        /** Holds a partial reply until the decision; {@code false} if it was decided (deliver or drop it now). */
        synchronized boolean hold(Object value, int hop, String host, int bytes) {
            if (held == null) {
                return false;
            }
            held.add(new Held(value, hop, host, bytes));
            return true;
        }

        /** The replies held so far, once: none are held after this. */
        synchronized List<Held> takeHeld() {
            List<Held> h = held == null ? List.of() : held;
            held = null;
            return h;
        }

        synchronized void failed(ChainException e) {
            if (failure == null) {
                failure = e;
            }
        }

        /** Drops the result and failure once the chain's outcome has them (the decision is remembered, not its values). */
        synchronized void forgetOutcome() {
            arrival = null;
            failure = null;
        }

        /** Completes when every voter acknowledged the decision (or stopped being waited for). */
        CompletableFuture<Void> acked() {
            return acked;
        }
    }

    /**
     * Stamps a new atomic chain {@code p}: the attempt of a new call, or, if {@code restartOf} is not
     * {@code null}, the next attempt of that attempt's call (wounded), which keeps the call's stamp,
     * made primary if the call is now this node's oldest outstanding one.
     */
    Tx begin(ChainOriginator.Pending p, ChainOriginator.@Nullable Pending restartOf) {
        Call call;
        synchronized (outstanding) {
            if (restartOf == null || restartOf.tx() == null) {
                TxStamp stamp = outstanding.isEmpty() ? new TxStamp(true, lastPrimaryCommit, origin)
                        : new TxStamp(false, clock.incrementAndGet(), origin);
                call = new Call(stamp);
                outstanding.add(call);
            } else {
                call = restartOf.tx().call;
                restarts.incrementAndGet();
                if (!call.stamp.primary() && !outstanding.isEmpty() && outstanding.iterator().next() == call) {
                    call.stamp = call.stamp.promoted(lastPrimaryCommit);
                }
                outstanding.add(call); // (a no-op unless it had been given up)
            }
        }
        Tx tx = new Tx(call, call.stamp, p.id(), p.attemptSecret(), p.attempt());
        p.atomic(tx);
        return tx;
    }

    /**
     * Call {@code call} will not be started again (its last attempt ended, committed or not): it
     * leaves the outstanding calls; a primary that committed sets the time of the last primary commit.
     */
    private void callEnded(Call call, boolean committed) {
        synchronized (outstanding) {
            if (outstanding.remove(call) && committed && call.stamp.primary()) {
                lastPrimaryCommit = clock.incrementAndGet();
            }
        }
    }

    /** The caller gave up on wounded attempt {@code p}: its call is not started again. */
    public void gaveUp(ChainOriginator.Pending p) {
        Tx tx = p.tx();
        if (tx != null) {
            callEnded(tx.call, tx.committed());
        }
    }

    /** The number of outstanding atomic calls of this node. */
    public int outstanding() {
        synchronized (outstanding) {
            return outstanding.size();
        }
    }

    /** A VOTE of live attempt {@code tx} (its secret checked), read from connection {@code from}. */
    void vote(Tx tx, TxFrames.Vote v, @Nullable Channel from) {
        observe(v.clock());
        synchronized (tx) {
            Voter voter = tx.voters.get(v.voter().node());
            if (voter == null) {
                voter = new Voter(v.voter());
                tx.voters.put(v.voter().node(), voter);
            }
            if (from != null) {
                voter.via = from;
            }
            if (!v.yes() && voter.yes) {
                voter.yes = false;
                voter.why = v.why();
                voter.hop = v.hop();
            }
            voter.held += v.heldReplies();
        }
    }

    /**
     * A VOTE of an attempt that ended here (an abort, or a chain given up): it did not commit (a
     * commit waits for every vote), so the voter is told to abort; nothing waits for its answer.
     */
    void lateVote(TxFrames.Vote v, @Nullable Channel from) {
        lateVotes.incrementAndGet();
        observe(v.clock());
        sender.send(from, v.voter(), new TxFrames.Decide(v.chainId(), v.secret(), nodeName, v.attempt(), false,
                "the chain attempt ended at its originator before this vote arrived"));
    }

    /**
     * A WOUND of live attempt {@code tx}: if it has not decided, it is aborted now (its voters told),
     * and {@code true} is returned: the caller ends the chain (and cancels it along its trail).
     */
    boolean wound(Tx tx, TxFrames.Wound w) {
        synchronized (tx) {
            if (tx.decision != null) {
                return false;
            }
            tx.woundedBy = w.by();
            tx.woundedAt = w.node();
            tx.decision = false;
            tx.why = "wounded at '" + w.node() + "' by the older transaction " + w.by();
        }
        wounds.incrementAndGet();
        aborts.incrementAndGet();
        fanOut(tx);
        return true;
    }

    /** The exception a wounded attempt ends with (its call starts again unless its time is up). */
    TransactionAbortedException woundedException(Tx tx, String chainName) {
        synchronized (tx) {
            return aborted(chainName + " (transaction " + key(tx) + ") was aborted: " + tx.why
                    + "; it is started again with the same priority while its deadline allows", tx.woundedAt, 0,
                    List.of(), null);
        }
    }

    /** A partial reply held at the originator until its transaction is decided. */
    record Held(Object value, int hop, String host, int bytes) {
    }

    /** What the originator does at an atomic chain's end. */
    record Decision(boolean commit, @Nullable TransactionAbortedException abort) {
    }

    /**
     * All the credit of attempt {@code tx} is home (every vote with it): decides, tells the voters,
     * and returns the decision; {@code failedAfterResult} is a failure that arrived after the result.
     * {@code chainName} names the chain in an abort's message (made only for an abort).
     */
    Decision decide(Tx tx, @Nullable ChainException failedAfterResult, Supplier<String> chainName) {
        TransactionAbortedException abort;
        synchronized (tx) {
            if (tx.decision != null) { // wounded, or ended, meanwhile
                return new Decision(tx.decision, tx.decision ? null : aborted(chainName.get() + " was aborted: " + tx.why,
                        null, 0, List.of(), null));
            }
            abort = abortOf(tx, failedAfterResult, chainName);
            tx.decision = abort == null;
            tx.why = abort == null ? null : abort.failure().message();
        }
        (abort == null ? commits : aborts).incrementAndGet();
        callEnded(tx.call, abort == null);
        fanOut(tx);
        return new Decision(abort == null, abort);
    }

    private TransactionAbortedException abortOf(Tx tx, @Nullable ChainException late,
                                                Supplier<String> chainName) {
        ChainException failed = tx.failure != null ? tx.failure : late;
        if (failed == null && tx.arrival != null && allYes(tx)) {
            return null; // a commit: no message to make
        }
        String name = chainName.get() + " (transaction " + key(tx) + ")";
        if (failed != null) {
            ChainFailure f = failed.failure();
            return aborted(name + " was aborted because " + (f.hop() > 0 ? "hop " + f.hop() + " at '" + f.host() + "'"
                    : "'" + f.host() + "'") + " failed: " + f.message() + ". Nothing it changed took effect"
                    + voterList(tx) + "; fix the failure, or run the chain again", f.host(), f.hop(), f.path(), failed);
        }
        for (Voter v : tx.voters.values()) {
            if (!v.yes) {
                return aborted(name + " was aborted because '" + v.address.node() + "' voted no after hop " + v.hop
                        + ": " + v.why + ". Nothing it changed took effect" + voterList(tx)
                        + "; see why the server could not prepare (a resource manager refused), or run the chain again",
                        v.address.node(), v.hop, List.of(), null);
            }
        }
        if (tx.arrival == null) {
            return aborted(name + " was aborted because it ended without a result. Nothing it changed took effect"
                    + voterList(tx), nodeName, 0, List.of(), null);
        }
        return null;
    }

    private static boolean allYes(Tx tx) {
        for (Voter v : tx.voters.values()) {
            if (!v.yes) {
                return false;
            }
        }
        return true;
    }

    private static String voterList(Tx tx) {
        return tx.voters.isEmpty() ? "" : " at " + String.join(", ", tx.voters.keySet().stream()
                .map(n -> "'" + n + "'").toList());
    }

    private static TransactionAbortedException aborted(String message, @Nullable String host, int hop, List<String> path,
                                                       @Nullable Throwable cause) {
        ChainFailure f = new ChainFailure(ChainErrors.exceptionName(ChainErrorCode.ABORTED), message,
                host == null ? "" : host, hop, path, List.of(), List.of(), List.of(), FailureFields.NONE);
        return new TransactionAbortedException(f, cause);
    }

    /**
     * Attempt {@code tx} ended at this node without a decision (cancelled, timed out, past its
     * deadline, the node closing): it aborts, and its voters are told. Returns {@code false} if it had
     * been decided to commit (then nothing changes), {@code true} if it is aborted (now or before).
     */
    boolean endedUndecided(Tx tx, String why) {
        synchronized (tx) {
            if (tx.decision != null) {
                return !tx.decision;
            }
            tx.decision = false;
            tx.why = why;
        }
        aborts.incrementAndGet();
        if (!tx.wounded()) {
            callEnded(tx.call, false);
        }
        fanOut(tx);
        return true;
    }

    /**
     * Sends the decision of {@code tx} to every voter, each on the connection its vote came on (on
     * the calling event loop when that is the connection's, as the last vote's is: no hand-off), and
     * waits for their acknowledgements; {@link #resendDue} sends it again to those that are late.
     */
    private void fanOut(Tx tx) {
        Voter[] to;
        TxFrames.Decide frame;
        Decided remembered;
        synchronized (tx) {
            remembered = new Decided(tx.secret, tx.attempt, tx.decision, tx.why);
            to = tx.voters.values().toArray(new Voter[0]);
            for (Voter v : to) {
                v.told = true;
            }
            tx.unacked = to.length;
            tx.sends = 1;
            tx.resendAtNanos = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(FIRST_RESEND_MILLIS);
            frame = to.length == 0 ? null : new TxFrames.Decide(tx.chainId, tx.secret, nodeName, tx.attempt,
                    tx.decision, tx.why);
        }
        synchronized (decided) {
            decided.put(tx.chainId, remembered);
        }
        if (frame == null) {
            tx.acked.complete(null);
            return;
        }
        awaitingAcks.put(tx.chainId, tx); // (before the first DECIDE: its ACK may come at once)
        for (Voter v : to) {
            sender.send(v.via, v.address, frame);
        }
    }

    /**
     * Called by the node's periodic sweep at {@code nowNanos}: sends each decision whose wait for an
     * acknowledgement is over again to the voters that have not acknowledged it (each wait twice the
     * one before, from {@link #FIRST_RESEND_MILLIS}); after {@link #DECIDE_SENDS} sends it stops waiting
     * for them (they ask for the decision themselves).
     */
    void resendDue(long nowNanos) {
        if (awaitingAcks.isEmpty()) {
            return;
        }
        for (Tx tx : awaitingAcks.values()) {
            List<Voter> late = null;
            TxFrames.Decide frame = null;
            boolean giveUp;
            synchronized (tx) {
                if (tx.unacked == 0 || nowNanos - tx.resendAtNanos < 0) {
                    continue;
                }
                giveUp = tx.sends >= DECIDE_SENDS;
                for (Voter v : tx.voters.values()) {
                    if (v.told && !v.acked) {
                        if (late == null) {
                            late = new ArrayList<>(2);
                        }
                        late.add(v);
                    }
                }
                if (!giveUp) {
                    tx.sends++;
                    tx.resendAtNanos = nowNanos + TimeUnit.MILLISECONDS.toNanos(FIRST_RESEND_MILLIS << (tx.sends - 1));
                    frame = new TxFrames.Decide(tx.chainId, tx.secret, nodeName, tx.attempt, tx.decision, tx.why);
                }
            }
            if (late == null) {
                continue;
            }
            for (Voter v : late) {
                if (giveUp) {
                    unacknowledged.incrementAndGet();
                    log.warn("node '{}': {} of transaction {} was sent {} times to '{}' without an acknowledgement; it "
                            + "stops waiting (the participant asks for the decision itself)", nodeName,
                            committedOf(tx) ? "COMMIT" : "ABORT", key(tx), DECIDE_SENDS, v.address.node());
                    acked(tx, v);
                } else {
                    sender.send(null, v.address, frame); // (by its address: a new connection if the last one broke)
                }
            }
        }
    }

    private static boolean committedOf(Tx tx) {
        synchronized (tx) {
            return Boolean.TRUE.equals(tx.decision);
        }
    }

    /**
     * A participant asks for the decision of an attempt that is not live here (or live and decided):
     * the decision if this node remembers it, else ABORT (presumed abort: the attempt is unknown, so
     * it cannot have committed here; this node may have restarted). The answer goes to {@code reply}.
     */
    void answer(TxFrames.Query q, java.util.function.Consumer<TxFrames.Decide> reply) {
        Decided d;
        synchronized (decided) {
            d = decided.get(q.chainId());
        }
        if (d != null && d.secret().matches(q.secret()) && d.attempt() == q.attempt()) {
            reply.accept(new TxFrames.Decide(q.chainId(), d.secret(), nodeName, d.attempt(), d.commit(), d.why()));
            return;
        }
        reply.accept(new TxFrames.Decide(q.chainId(), q.secret(), nodeName, q.attempt(), false,
                "its originator '" + nodeName + "' does not know the transaction (it ended long ago, or the node "
                + "restarted): presumed aborted"));
    }

    /** Whether {@code tx} has been decided. */
    static boolean decided(Tx tx) {
        synchronized (tx) {
            return tx.decision != null;
        }
    }

    /** A DECIDE_ACK arrived; {@code false} if it is forged (no decided attempt with that secret). */
    boolean ack(TxFrames.DecideAck a) {
        observe(a.clock());
        Tx tx = awaitingAcks.get(a.chainId());
        if (tx == null) {
            return true; // (a resent DECIDE acknowledged twice, or after its wait ended)
        }
        if (!tx.secret.matches(a.secret()) || tx.attempt != a.attempt()) {
            return false;
        }
        Voter v;
        synchronized (tx) {
            v = tx.voters.get(a.node());
        }
        if (v != null) {
            acked(tx, v);
        }
        return true;
    }

    private void acked(Tx tx, Voter v) {
        boolean all;
        synchronized (tx) {
            if (v.acked || !v.told) {
                return;
            }
            v.acked = true;
            all = --tx.unacked == 0;
            if (all) { // the decision is remembered (for queries) without the connections it went on
                for (Voter x : tx.voters.values()) {
                    x.via = null;
                }
            }
        }
        if (all) {
            awaitingAcks.remove(tx.chainId, tx);
            tx.acked.complete(null);
        }
    }

    private TxKey key(Tx tx) {
        return new TxKey(nodeName, tx.chainId, tx.attempt);
    }

    /** Atomic chains committed. */
    public long commits() {
        return commits.get();
    }

    /** Atomic chain attempts aborted (wounded ones included). */
    public long aborts() {
        return aborts.get();
    }

    /** Atomic chain attempts aborted because an older transaction wounded them. */
    public long wounds() {
        return wounds.get();
    }

    /** Attempts started again after a wound. */
    public long restarts() {
        return restarts.get();
    }

    /** Votes that arrived after their attempt had ended (answered with an abort). */
    public long lateVotes() {
        return lateVotes.get();
    }

    /** Decisions some voter never acknowledged. */
    public long unacknowledged() {
        return unacknowledged.get();
    }

    /** Decided attempts waiting for acknowledgements. */
    public int awaitingAcks() {
        return awaitingAcks.size();
    }
}
