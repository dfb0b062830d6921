package io.rpcc.server.internal.atomic;

import io.rpcc.core.internal.wire.TxKey;
import io.rpcc.core.internal.wire.TxStamp;
import io.rpcc.server.atomic.ResourceManager;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.jspecify.annotations.Nullable;

/**
 * A transaction's record at this node: the writes, hooks and resource managers its finished hops kept
 * (applied in order on commit), the locks it holds and the locks its parked hops wait for. Made by
 * {@link LocalTransactions#join}; ended by {@link LocalTransactions#commit} or
 * {@link LocalTransactions#abort}, after which it keeps nothing.
 *
 * <p>Guarded by its own monitor, which is never held while a lock's monitor is taken.
 */
public final class Participant {
    /**
     * The order in which transactions come: by stamp ({@link TxStamp#compareTo}), then the smaller
     * chain number, then the smaller attempt, then the originator's name. Negative: the first comes first.
     */
    static final Comparator<Participant> ORDER = (a, b) -> {
        int c = a.stamp.compareTo(b.stamp);
        if (c != 0) {
            return c;
        }
        c = Long.compare(a.key.chainId(), b.key.chainId());
        if (c != 0) {
            return c;
        }
        c = Integer.compare(a.key.attempt(), b.key.attempt());
        return c != 0 ? c : a.key.origin().compareTo(b.key.origin());
    };

    /** A resource manager and whether it is prepared. */
    static final class Resource {
        final ResourceManager manager;
        boolean prepared;
        boolean preparing;

        Resource(ResourceManager manager) {
            this.manager = manager;
        }
    }

    /** What an ending takes away from the participant, to be applied or discarded outside its monitor. */
    record Ending(Map<VarState<?>, Object> varWrites, Map<MapState<?, ?>, Map<Object, Object>> mapWrites,
            List<Runnable> hooks, List<ResourceManager> resources, List<TxLock> locks,
            List<TxLock.Waiter> waiting) {
    }

    private final TxKey key;
    private final LocalTransactions owner;
    private volatile TxStamp stamp;

    private boolean committed;
    private @Nullable String abortReason;
    private final Set<TxLock> locks = new HashSet<>();
    private final Map<TxLock, TxLock.Waiter> waiting = new HashMap<>(2);
    private final Map<VarState<?>, Object> varWrites = new LinkedHashMap<>();
    private final Map<MapState<?, ?>, Map<Object, Object>> mapWrites = new LinkedHashMap<>();
    private final List<Runnable> onCommit = new ArrayList<>(0);
    private final List<Runnable> onAbort = new ArrayList<>(0);
    private final List<Resource> resources = new ArrayList<>(0);

    Participant(TxKey key, TxStamp stamp, LocalTransactions owner) {
        this.key = key;
        this.stamp = stamp;
        this.owner = owner;
    }

    /** The transaction. */
    public TxKey key() {
        return key;
    }

    /** Its stamp: the one it joined with, or the first-coming one a later hop brought (a promotion). */
    public TxStamp stamp() {
        return stamp;
    }

    LocalTransactions owner() {
        return owner;
    }

    /** Takes {@code s} if it comes before the current stamp; whether it did. */
    synchronized boolean promote(TxStamp s) {
        if (s.compareTo(stamp) < 0 && !isEnded()) {
            stamp = s;
            return true;
        }
        return false;
    }

    /** Whether it committed or aborted. */
    public synchronized boolean isEnded() {
        return committed || abortReason != null;
    }

    /**
     * Whether committing it now would run no code of the application's: no commit hook and no
     * resource manager (its writes are applied and its locks released, which never blocks), so a
     * commit may run on the event loop its decision arrived on.
     */
    public synchronized boolean commitsWithoutUserCode() {
        return onCommit.isEmpty() && resources.isEmpty();
    }

    /** Whether it committed. */
    public synchronized boolean isCommitted() {
        return committed;
    }

    /** How many locks it holds (for tests). */
    public synchronized int locksHeld() {
        return locks.size();
    }

    /** The error for work of an ended participant, or null while it is active. */
    synchronized @Nullable TransactionAborted endedError() {
        if (abortReason != null) {
            return new TransactionAborted(key.toString(), abortReason);
        }
        if (committed) {
            return new TransactionAborted(key.toString(), "it had committed at this node before this hop ran");
        }
        return null;
    }

    synchronized boolean holdLock(TxLock lock, boolean first) {
        if (isEnded()) {
            return false;
        }
        if (first && locks.add(lock)) {
            owner.locksHeld.incrementAndGet();
        }
        return true;
    }

    synchronized boolean waitFor(TxLock lock, TxLock.Waiter w) {
        if (isEnded()) {
            return false;
        }
        waiting.put(lock, w);
        return true;
    }

    synchronized boolean grantedWhileWaiting(TxLock lock, TxLock.Waiter w, boolean first) {
        if (isEnded()) {
            return false;
        }
        waiting.remove(lock, w);
        if (first && locks.add(lock)) {
            owner.locksHeld.incrementAndGet();
        }
        return true;
    }

    synchronized List<TxLock> waitingLocks() {
        return new ArrayList<>(waiting.keySet());
    }

    synchronized @Nullable Object varWrite(VarState<?> v) {
        return varWrites.get(v);
    }

    /** The value written for {@code k} by a kept hop, {@link MapState#TOMBSTONE} for a removal, or null. */
    synchronized @Nullable Object mapWrite(MapState<?, ?> m, Object k) {
        Map<Object, Object> w = mapWrites.get(m);
        return w == null ? null : w.get(k);
    }

    synchronized void overlayKeys(MapState<?, ?> m, Set<Object> keys) {
        Map<Object, Object> w = mapWrites.get(m);
        if (w != null) {
            MapState.overlay(w, keys);
        }
    }

    /** Keeps a finished attempt's layer; false if the participant ended meanwhile. */
    synchronized boolean keep(HopAttempt a) {
        if (isEnded()) {
            return false;
        }
        varWrites.putAll(a.varWrites);
        for (Map.Entry<MapState<?, ?>, Map<Object, Object>> e : a.mapWrites.entrySet()) {
            mapWrites.computeIfAbsent(e.getKey(), m -> new LinkedHashMap<>()).putAll(e.getValue());
        }
        onCommit.addAll(a.onCommit);
        onAbort.addAll(a.onAbort);
        for (ResourceManager rm : a.enlisted) {
            Resource known = resource(rm);
            if (known == null) {
                resources.add(new Resource(rm));
            } else {
                known.prepared = false; // more work on it since its prepare: prepare it again
            }
        }
        return true;
    }

    /** Whether {@code rm} was enlisted by a kept hop. */
    synchronized boolean hasResource(ResourceManager rm) {
        return resource(rm) != null;
    }

    private @Nullable Resource resource(ResourceManager rm) {
        for (Resource r : resources) {
            if (r.manager == rm) {
                return r;
            }
        }
        return null;
    }

    /** Claims the resources to prepare now (not prepared, not being prepared by a concurrent vote). */
    synchronized @Nullable List<Resource> claimUnprepared() {
        if (isEnded()) {
            return null;
        }
        List<Resource> claimed = new ArrayList<>(0);
        for (Resource r : resources) {
            if (!r.prepared && !r.preparing) {
                r.preparing = true;
                claimed.add(r);
            }
        }
        return claimed;
    }

    /**
     * Records the end of {@code r}'s prepare. Returns true if the participant ended while it ran: the
     * ending left {@code r} out (so that no two of its methods run at once), and the caller must now
     * commit ({@link #isCommitted()}) or roll it back.
     */
    synchronized boolean prepared(Resource r, boolean ok) {
        r.preparing = false;
        r.prepared = ok;
        return isEnded();
    }

    /**
     * Ends the participant (commit or abort) and takes everything away from it; null if it had ended
     * already.
     */
    synchronized @Nullable Ending end(boolean commit, String reason) {
        if (isEnded()) {
            return null;
        }
        if (commit) {
            committed = true;
        } else {
            abortReason = reason;
        }
        List<ResourceManager> rms = resources.isEmpty() ? List.of() : new ArrayList<>(resources.size());
        for (Resource r : resources) {
            if (!r.preparing) { // one being prepared is ended by its preparer (see prepared)
                rms.add(r.manager);
            }
        }
        // (copies only of what is there: most transactions have no hooks, resources or waiters here)
        List<Runnable> hooks = commit ? onCommit : onAbort;
        Ending e = new Ending(commit && !varWrites.isEmpty() ? new LinkedHashMap<>(varWrites) : Map.of(),
                commit && !mapWrites.isEmpty() ? new LinkedHashMap<>(mapWrites) : Map.of(),
                hooks.isEmpty() ? List.of() : new ArrayList<>(hooks), rms,
                locks.isEmpty() ? List.of() : new ArrayList<>(locks),
                waiting.isEmpty() ? List.of() : new ArrayList<>(waiting.values()));
        owner.locksHeld.addAndGet(-locks.size());
        locks.clear();
        waiting.clear();
        varWrites.clear();
        mapWrites.clear();
        onCommit.clear();
        onAbort.clear();
        resources.clear();
        return e;
    }

    @Override
    public String toString() {
        return "participant " + key + " " + stamp;
    }
}
