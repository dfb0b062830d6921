package io.rpcc.server.internal.atomic;

import io.rpcc.core.internal.wire.TxKey;
import io.rpcc.core.internal.wire.TxStamp;
import io.rpcc.server.atomic.ResourceManager;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.Callable;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The transactions of atomic chains at one node: a {@link Participant} per transaction ({@link TxKey})
 * that has run hops here, hop attempts on top of them ({@link #run}), votes ({@link #prepare}), and
 * their ends ({@link #commit}, {@link #abort}); the node's Lamport clock. One per server node.
 *
 * <p>Thread-safe. No monitor of the engine is held while a service function, a hook or a resource
 * manager runs, nor while {@link WoundSink#wound} is called.
 */
public final class LocalTransactions {
    private static final Logger log = LoggerFactory.getLogger(LocalTransactions.class);

    /** How many ended transactions are remembered, so that a late hop of one is refused by {@link #join}. */
    static final int ENDED_REMEMBERED = 16_384;

    /** Where wounds go: the protocol tells the victim's originator, which aborts it unless it decided commit. */
    @FunctionalInterface
    public interface WoundSink {
        /**
         * {@code by}, which comes first, asked for a lock that {@code victim} (stamped
         * {@code victimStamp}) holds in a conflicting mode, and now waits for it. Called once per
         * victim and lock, on the requester's thread, with no monitor of the engine held; must not block.
         */
        void wound(TxKey victim, TxStamp victimStamp, TxKey by);
    }

    /**
     * A participant's vote.
     *
     * @param yes whether it can commit
     * @param why for a no, the reason (which resource manager refused, or why the transaction aborted)
     * @param lamportClock this node's Lamport clock, carried back to the originator
     */
    public record Vote(boolean yes, @Nullable String why, long lamportClock) {
    }

    private final WoundSink wounds;
    private final ConcurrentHashMap<TxKey, Participant> participants = new ConcurrentHashMap<>();
    /** Guarded by itself; also guards the creation of participants, so a key cannot be made again after it ended. */
    private final Map<TxKey, String> ended = new LinkedHashMap<>(256, 0.75f, false) {
        @Override
        protected boolean removeEldestEntry(Map.Entry<TxKey, String> eldest) {
            return size() > ENDED_REMEMBERED;
        }
    };
    private final AtomicLong clock = new AtomicLong();
    final AtomicInteger locksHeld = new AtomicInteger();
    private final AtomicInteger parkedHops = new AtomicInteger();
    private final AtomicLong woundsSent = new AtomicLong();
    private final AtomicLong commits = new AtomicLong();
    private final AtomicLong aborts = new AtomicLong();
    private final AtomicLong heuristicOutcomes = new AtomicLong();

    /** An engine that sends its wounds to {@code wounds}. */
    public LocalTransactions(WoundSink wounds) {
        this.wounds = Objects.requireNonNull(wounds, "wounds");
    }

    /**
     * The participant of {@code key}, made if it is new. A known one takes {@code stamp} if it comes
     * before its own (a promotion: its parked requests may now wound holders and move up their queues).
     * Also observes the stamp's order on the Lamport clock.
     *
     * @throws IllegalStateException if the transaction ended (committed or aborted) here recently: a
     *     late hop of it must not start a new one
     */
    public Participant join(TxKey key, TxStamp stamp) {
        Objects.requireNonNull(key, "key");
        Objects.requireNonNull(stamp, "stamp");
        observe(stamp.order());
        Participant p = participants.get(key);
        if (p == null) {
            synchronized (ended) {
                String how = ended.get(key);
                if (how != null) {
                    throw new IllegalStateException("transaction " + key + " ended at this node (" + how
                            + "): a late hop of it is refused; its originator restarts the chain as a new attempt"
                            + " if it should go on");
                }
                p = participants.get(key); // (made and removed only under ended)
                if (p == null) { // made with the stamp it brings: nothing to promote
                    p = new Participant(key, stamp, this);
                    participants.put(key, p);
                    return p;
                }
            }
        }
        if (p.promote(stamp)) {
            promoted(p);
        }
        return p;
    }

    /**
     * A promotion of {@code key} that reached this node outside a hop: if its participant is active
     * here, it takes {@code stamp} if that comes before its own (its parked requests may now wound
     * holders and move up their queues), as {@link #join} does; unknown or ended keys are left alone
     * (a later hop brings the stamp itself). Also observes the stamp's order on the Lamport clock.
     *
     * @return whether a participant here took the stamp
     */
    public boolean promote(TxKey key, TxStamp stamp) {
        observe(stamp.order());
        Participant p = participants.get(key);
        if (p != null && p.promote(stamp)) {
            promoted(p);
            return true;
        }
        return false;
    }

    private void promoted(Participant p) {
        List<CompletableFuture<Void>> granted = new ArrayList<>(0);
        for (TxLock lock : p.waitingLocks()) {
            TxLock.Outcome o = lock.promoted(p, granted);
            wound(o.victims(), p);
        }
        complete(granted);
    }

    /**
     * Whether {@link #commit} of {@code key} would run no code of the application's (no commit hook,
     * no resource manager; true for a key with no participant here): then it never blocks.
     */
    public boolean commitRunsNoUserCode(TxKey key) {
        Participant p = participants.get(key);
        return p == null || p.commitsWithoutUserCode();
    }

    /** The participant of {@code key}, or null if none is active here. */
    public @Nullable Participant find(TxKey key) {
        return participants.get(key);
    }

    /**
     * Runs one attempt of a hop of {@code p}'s transaction on this thread: {@code body} with the
     * attempt bound as the thread's transaction ({@code Transaction.current()}, {@code TxVar},
     * {@code TxMap} see it), unbound after. See {@link HopRun} for the outcomes; an attempt of an ended
     * participant fails with {@link TransactionAborted} without running {@code body}.
     */
    public <T extends @Nullable Object> HopRun<T> run(Participant p, Callable<T> body) {
        TransactionAborted endedBefore = p.endedError();
        if (endedBefore != null) {
            return new HopRun.Failed<>(endedBefore);
        }
        HopAttempt a = new HopAttempt(p);
        HopAttempt previous = TxContext.bind(a);
        T value = null;
        Throwable error = null;
        try {
            value = body.call();
        } catch (Throwable t) {
            error = t;
        } finally {
            TxContext.restore(previous);
            a.finish();
        }
        TransactionAborted aborted = p.endedError();
        if (aborted != null) {
            discard(a);
            return new HopRun.Failed<>(aborted);
        }
        CompletableFuture<Void> waiting = a.waitingFor();
        if (waiting != null) {
            discard(a);
            return new HopRun.Parked<>(park(waiting));
        }
        if (error != null) {
            discard(a);
            return new HopRun.Failed<>(error);
        }
        if (!p.keep(a)) {
            discard(a);
            TransactionAborted e = p.endedError();
            return new HopRun.Failed<>(e != null ? e : new TransactionAborted(p.key().toString(), "it ended"));
        }
        return new HopRun.Done<>(value);
    }

    private CompletableFuture<Void> park(CompletableFuture<Void> waiting) {
        CompletableFuture<Void> resume = new CompletableFuture<>();
        parkedHops.incrementAndGet();
        waiting.whenComplete((v, e) -> {
            parkedHops.decrementAndGet();
            if (e != null) {
                resume.completeExceptionally(e);
            } else {
                resume.complete(null);
            }
        });
        return resume;
    }

    /** Rolls back the resources a dropped attempt enlisted that no kept hop had enlisted then (nor since). */
    private void discard(HopAttempt a) {
        for (ResourceManager rm : a.fresh) {
            if (!a.participant.hasResource(rm)) { // a concurrent branch may have kept it since
                try {
                    rm.rollback();
                } catch (Exception | LinkageError e) {
                    log.warn("Atomic hop of transaction {}: rolling back resource {} of a dropped hop attempt failed",
                            a.participant.key(), rm, e);
                }
            }
        }
    }

    /**
     * Prepares {@code p}'s resource managers that are not prepared yet (those enlisted since its last
     * vote), for its vote: yes if all of them prepared, no (with the reason) if one threw or the
     * transaction ended. A participant that voted yes still accepts later hops of its transaction (a
     * chain coming back to this node) and can be prepared again.
     */
    public Vote prepare(Participant p) {
        List<Participant.Resource> claimed = p.claimUnprepared();
        if (claimed == null) {
            TransactionAborted e = p.endedError();
            return new Vote(false, e != null ? e.getMessage() : "transaction " + p.key() + " ended", clock());
        }
        for (int i = 0; i < claimed.size(); i++) {
            Participant.Resource r = claimed.get(i);
            Exception refused = null;
            try {
                r.manager.prepare();
            } catch (Exception | LinkageError e) {
                refused = e instanceof Exception x ? x : new Exception(e);
            }
            if (p.prepared(r, refused == null)) {
                endLate(p, r.manager, p.isCommitted() && refused == null);
            }
            if (refused != null) {
                for (int j = i + 1; j < claimed.size(); j++) {
                    if (p.prepared(claimed.get(j), false)) {
                        endLate(p, claimed.get(j).manager, false);
                    }
                }
                return new Vote(false, "resource " + r.manager + " refused to prepare at this node: " + refused,
                        clock());
            }
        }
        TransactionAborted endedMeanwhile = p.endedError();
        if (endedMeanwhile != null) {
            return new Vote(false, endedMeanwhile.getMessage(), clock());
        }
        return new Vote(true, null, clock());
    }

    /** Commits or rolls back a resource whose prepare was running when its participant ended. */
    private void endLate(Participant p, ResourceManager rm, boolean commit) {
        HopAttempt bound = TxContext.unbind();
        try {
            endResource(p.key(), rm, commit, "it ended while the resource prepared");
        } finally {
            TxContext.restore(bound);
        }
    }

    private void endResource(TxKey key, ResourceManager rm, boolean commit, String why) {
        try {
            if (commit) {
                rm.commit();
            } else {
                rm.rollback();
            }
        } catch (Exception | LinkageError x) {
            if (commit) {
                heuristicOutcomes.incrementAndGet();
                log.error("Transaction {} committed, but resource {} failed to commit at this node: a heuristic"
                        + " outcome (the other participants committed); check that store", key, rm, x);
            } else {
                log.warn("Transaction {} aborted ({}); rolling back resource {} failed", key, why, rm, x);
            }
        }
    }

    /**
     * Commits {@code key}'s participant: applies the writes its kept hops made (in order), commits its
     * resource managers (a throw is logged and counted as a heuristic outcome), runs its commit hooks
     * (a throw is logged), releases its locks (waiters are granted) and ends its parked hops with
     * {@link TransactionAborted}. Idempotent; an unknown or ended key is a no-op.
     */
    public void commit(TxKey key) {
        end(key, true, "committed");
    }

    /**
     * Aborts {@code key}'s participant: drops its writes, rolls back its resource managers, runs its
     * abort hooks, releases its locks, and ends its parked hops with {@link TransactionAborted}
     * carrying {@code why}. Idempotent; an unknown key is remembered as aborted (a late hop of it is
     * refused), an ended one is a no-op.
     */
    public void abort(TxKey key, String why) {
        end(key, false, why);
    }

    private void end(TxKey key, boolean commit, String why) {
        Participant p;
        synchronized (ended) {
            p = participants.remove(key);
            if (p == null) {
                ended.putIfAbsent(key, commit ? "committed" : "aborted: " + why);
                return;
            }
            ended.put(key, commit ? "committed" : "aborted: " + why);
        }
        Participant.Ending e = p.end(commit, why);
        if (e == null) {
            return;
        }
        (commit ? commits : aborts).incrementAndGet();
        // a wound sink may abort at once, on the thread of the hop that wounded: hooks and resource
        // managers must not see that hop's transaction as theirs
        HopAttempt bound = TxContext.unbind();
        try {
            finish(key, p, e, commit, why);
        } finally {
            TxContext.restore(bound);
        }
    }

    private void finish(TxKey key, Participant p, Participant.Ending e, boolean commit, String why) {
        if (commit) {
            for (Map.Entry<VarState<?>, Object> w : e.varWrites().entrySet()) {
                w.getKey().apply(w.getValue());
            }
            for (Map.Entry<MapState<?, ?>, Map<Object, Object>> w : e.mapWrites().entrySet()) {
                w.getKey().apply(w.getValue());
            }
        }
        for (ResourceManager rm : e.resources()) {
            endResource(key, rm, commit, why);
        }
        for (Runnable hook : e.hooks()) {
            try {
                hook.run();
            } catch (RuntimeException | LinkageError x) {
                log.warn("Transaction {}: an {} hook threw; the other hooks still run", key,
                        commit ? "onCommit" : "onAbort", x);
            }
        }
        List<CompletableFuture<Void>> granted = new ArrayList<>(0);
        for (TxLock.Waiter w : e.waiting()) {
            granted.addAll(w.lock.release(p));
        }
        for (TxLock lock : e.locks()) {
            granted.addAll(lock.release(p));
        }
        if (!e.waiting().isEmpty()) { // (made only for parked hops: most transactions have none)
            TransactionAborted parkedError = new TransactionAborted(key.toString(),
                    commit ? "it committed at this node while this hop waited for a lock" : why);
            for (TxLock.Waiter w : e.waiting()) {
                w.granted.completeExceptionally(parkedError);
            }
        }
        complete(granted);
    }

    private static void complete(List<CompletableFuture<Void>> granted) {
        for (CompletableFuture<Void> f : granted) {
            f.complete(null);
        }
    }

    void wound(List<Participant> victims, Participant by) {
        for (Participant v : victims) {
            woundsSent.incrementAndGet();
            try {
                wounds.wound(v.key(), v.stamp(), by.key());
            } catch (RuntimeException x) {
                log.warn("Transaction {} wounded {} (which holds a lock it asked for), but the wound sink threw",
                        by.key(), v.key(), x);
            }
        }
    }

    /** Lamport clock: takes {@code order} if it is later; returns the clock. */
    public long observe(long order) {
        return clock.accumulateAndGet(order, Math::max);
    }

    /** Lamport clock: advances it by one (a new standard chain's stamp); returns the new value. */
    public long tick() {
        return clock.incrementAndGet();
    }

    /** Lamport clock: its value. */
    public long clock() {
        return clock.get();
    }

    /** How many transactions are active at this node. */
    public int activeParticipants() {
        return participants.size();
    }

    /** How many locks active transactions hold at this node (a lock held by two counts twice). */
    public int locksHeld() {
        return locksHeld.get();
    }

    /** How many hops are parked, waiting for a lock. */
    public int parkedHops() {
        return parkedHops.get();
    }

    /** How many wounds this node sent (handed to its {@link WoundSink}). */
    public long woundsSent() {
        return woundsSent.get();
    }

    /** How many transactions committed at this node. */
    public long commits() {
        return commits.get();
    }

    /** How many transactions aborted at this node (among those that had a participant here). */
    public long aborts() {
        return aborts.get();
    }

    /** How many resource managers failed to commit after a commit decision (heuristic outcomes). */
    public long heuristicOutcomes() {
        return heuristicOutcomes.get();
    }

    @Override
    public String toString() {
        return "LocalTransactions[" + participants.size() + " active, " + locksHeld.get() + " locks held, "
                + parkedHops.get() + " parked]";
    }
}
