package io.rpcc.server.internal.atomic;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.function.Consumer;
import org.jspecify.annotations.Nullable;

/**
 * One lock of transactional state (a {@code TxVar}, a key of a {@code TxMap}, or a map's map-wide
 * lock), held by {@link Participant}s until they end. Modes: shared ({@link #S}), intention to write
 * ({@link #IX}, what writers of a map's keys take on the map-wide lock: compatible with each other,
 * not with a whole-map read) and exclusive ({@link #X}); a holder's mode is the union of what it asked
 * for, so a reader upgrades by asking for more.
 *
 * <p>A request is granted at once when it conflicts with no other holder and no waiter comes before
 * it (in {@link Participant#ORDER}; a holder asking for more does not queue behind waiters, who wait
 * for it anyway). Otherwise it queues, and wounds every conflicting holder that comes after it, once per
 * holder. A release grants waiters in order; one that holds nothing yet is not granted past an earlier
 * waiter that is still blocked.
 *
 * <p>Guarded by its own monitor; inside it, a participant's monitor may be taken (never the reverse).
 * Futures of granted waiters are returned to the caller, who completes them after leaving the monitor.
 */
final class TxLock {
    /** Shared (read) mode. */
    static final int S = 1;
    /** Intention to write keys of a map (on a map-wide lock). */
    static final int IX = 2;
    /** Exclusive (write) mode. */
    static final int X = 4;

    /** A queued request: the participant, the mode it will hold when granted, and what completes then. */
    static final class Waiter {
        final TxLock lock;
        final Participant participant;
        int mode;
        final CompletableFuture<Void> granted = new CompletableFuture<>();

        Waiter(TxLock lock, Participant participant, int mode) {
            this.lock = lock;
            this.participant = participant;
            this.mode = mode;
        }
    }

    /** What {@link #request} decided. */
    enum Kind { GRANTED, WAIT, RETIRED, ENDED }

    /** A request's outcome: for {@link Kind#WAIT}, the future that completes when granted and the holders to wound. */
    record Outcome(Kind kind, @Nullable CompletableFuture<Void> granted, List<Participant> victims) {
        static final Outcome GRANTED = new Outcome(Kind.GRANTED, null, List.of());
        static final Outcome RETIRED = new Outcome(Kind.RETIRED, null, List.of());
        static final Outcome ENDED = new Outcome(Kind.ENDED, null, List.of());
    }

    private final String name;
    private final @Nullable Consumer<TxLock> onIdle;
    private final Map<Participant, Integer> holders = new HashMap<>(4);
    private final List<Waiter> waiters = new ArrayList<>(2);
    private final Set<Participant> wounded = new HashSet<>(2);
    private boolean retired;

    /**
     * @param name what the lock protects, for messages
     * @param onIdle if not null, called (inside the monitor) when the lock has neither holders nor
     *     waiters, after which it is retired: requests answer {@link Kind#RETIRED} and the caller asks
     *     its table for a new lock (so that a map's per-key locks do not outlive their use)
     */
    TxLock(String name, @Nullable Consumer<TxLock> onIdle) {
        this.name = name;
        this.onIdle = onIdle;
    }

    String name() {
        return name;
    }

    static int normalize(int mode) {
        return (mode & X) != 0 ? X : mode;
    }

    static boolean conflicts(int a, int b) {
        if (a == 0 || b == 0) {
            return false;
        }
        if (((a | b) & X) != 0) {
            return true;
        }
        return ((a & S) != 0 && (b & IX) != 0) || ((a & IX) != 0 && (b & S) != 0);
    }

    private static boolean covers(int held, int mode) {
        return (held & X) != 0 || (held | mode) == held;
    }

    /** Asks for {@code mode} on behalf of {@code p}. */
    synchronized Outcome request(Participant p, int mode) {
        if (retired) {
            return Outcome.RETIRED;
        }
        int held = holders.getOrDefault(p, 0);
        if (covers(held, mode)) {
            return Outcome.GRANTED;
        }
        int want = normalize(held | mode);
        if (compatible(p, want) && (held != 0 || !waiterBefore(p))) {
            if (!p.holdLock(this, held == 0)) {
                return Outcome.ENDED;
            }
            holders.put(p, want);
            return Outcome.GRANTED;
        }
        Waiter w = waiterOf(p);
        if (w == null) {
            w = new Waiter(this, p, want);
            if (!p.waitFor(this, w)) {
                return Outcome.ENDED;
            }
            waiters.add(w);
        } else {
            w.mode = normalize(w.mode | want);
        }
        return new Outcome(Kind.WAIT, w.granted, woundsFor(p, w.mode));
    }

    /**
     * After {@code p} came to come earlier (a promotion): the holders it must wound now, and the
     * futures of waiters granted because the queue's order changed.
     */
    synchronized Outcome promoted(Participant p, List<CompletableFuture<Void>> grantedOut) {
        Waiter w = waiterOf(p);
        if (w == null) {
            return Outcome.GRANTED;
        }
        List<Participant> victims = woundsFor(p, w.mode);
        grantedOut.addAll(grantWaiters());
        return new Outcome(Kind.WAIT, w.granted, victims);
    }

    /** {@code p} ended: its hold and its waiting end; returns the futures of the waiters granted now. */
    synchronized List<CompletableFuture<Void>> release(Participant p) {
        holders.remove(p);
        wounded.remove(p);
        waiters.removeIf(w -> w.participant == p);
        List<CompletableFuture<Void>> granted = grantWaiters();
        retireIfIdle();
        return granted;
    }

    /** Whether a transaction holds this lock. */
    synchronized boolean isHeld() {
        return !holders.isEmpty();
    }

    /** Whether nobody holds or waits for this lock. */
    synchronized boolean isIdle() {
        return holders.isEmpty() && waiters.isEmpty();
    }

    private void retireIfIdle() {
        if (onIdle != null && holders.isEmpty() && waiters.isEmpty() && !retired) {
            retired = true;
            onIdle.accept(this);
        }
    }

    private boolean compatible(Participant p, int mode) {
        for (Map.Entry<Participant, Integer> h : holders.entrySet()) {
            if (h.getKey() != p && conflicts(h.getValue(), mode)) {
                return false;
            }
        }
        return true;
    }

    private boolean waiterBefore(Participant p) {
        for (Waiter w : waiters) {
            if (w.participant != p && Participant.ORDER.compare(w.participant, p) < 0) {
                return true;
            }
        }
        return false;
    }

    private @Nullable Waiter waiterOf(Participant p) {
        for (Waiter w : waiters) {
            if (w.participant == p) {
                return w;
            }
        }
        return null;
    }

    private List<Participant> woundsFor(Participant p, int mode) {
        List<Participant> victims = null;
        for (Map.Entry<Participant, Integer> h : holders.entrySet()) {
            Participant holder = h.getKey();
            if (holder != p && conflicts(h.getValue(), mode) && Participant.ORDER.compare(p, holder) < 0
                    && wounded.add(holder)) {
                if (victims == null) {
                    victims = new ArrayList<>(2);
                }
                victims.add(holder);
            }
        }
        return victims == null ? List.of() : victims;
    }

    private List<CompletableFuture<Void>> grantWaiters() {
        if (waiters.isEmpty()) {
            return List.of();
        }
        if (waiters.size() > 1) {
            waiters.sort((a, b) -> Participant.ORDER.compare(a.participant, b.participant));
        }
        List<CompletableFuture<Void>> granted = null;
        boolean blocked = false;
        for (Iterator<Waiter> it = waiters.iterator(); it.hasNext(); ) {
            Waiter w = it.next();
            if (w.participant.isEnded()) {
                it.remove(); // its abort completes its future
                continue;
            }
            int held = holders.getOrDefault(w.participant, 0);
            if (!compatible(w.participant, w.mode) || (held == 0 && blocked)) {
                blocked = true;
                continue;
            }
            it.remove();
            if (!w.participant.grantedWhileWaiting(this, w, held == 0)) {
                continue; // ended meanwhile: its abort completes its future
            }
            holders.put(w.participant, normalize(held | w.mode));
            if (granted == null) {
                granted = new ArrayList<>(2);
            }
            granted.add(w.granted);
        }
        return granted == null ? List.of() : granted;
    }

    @Override
    public String toString() {
        return name;
    }
}
