package io.rpcc.core.internal.function;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;

/**
 * Who may run in a node's function runners, and who waits: the {@code slots} runners are shared
 * between <em>parties</em> (who asks: a verified originator, or the peer that sent the hop), so that
 * one party cannot take them all. A party runs at most {@code slots - 1} invocations at once (all of
 * them if there is one slot), and has at most a quarter of the queue ({@code maxQueued / 4}, at least
 * one) waiting; a freed runner goes to the waiting party that runs the fewest, the earliest of its
 * invocations first. So a party that keeps every runner busy with functions that run to their wall
 * time leaves a runner free for everyone else, and its flood waits in its own part of the queue.
 * Thread-safe; waiting threads park (virtual threads do not pin their carrier).
 */
final class RunnerShares {
    /** How a request for a slot ended. */
    enum Outcome {
        /** A slot is the caller's: it must {@link #release} it. */
        GRANTED,
        /** The queue, or the party's share of it, was full: refused at once. */
        QUEUE_FULL,
        /** No slot came within the time allowed. */
        TIMED_OUT
    }

    private final int slots;
    private final int perPartySlots;
    private final int maxQueued;
    private final int perPartyQueued;
    private final ReentrantLock lock = new ReentrantLock();
    /** Slots held, by party (absent: none). */
    private final Map<String, Integer> running = new HashMap<>();
    /** Invocations waiting, by party (absent: none). */
    private final Map<String, Integer> queuedByParty = new HashMap<>();
    /** Every waiting invocation, earliest first. */
    private final List<Waiter> queue = new ArrayList<>();
    private int inUse;

    RunnerShares(int slots, int maxQueued) {
        this.slots = slots;
        this.perPartySlots = Math.max(1, slots - 1);
        this.maxQueued = maxQueued;
        this.perPartyQueued = maxQueued == 0 ? 0 : Math.max(1, maxQueued / 4);
    }

    /** The most slots one party holds at once. */
    int perPartySlots() {
        return perPartySlots;
    }

    /** The most invocations one party has waiting. */
    int perPartyQueued() {
        return perPartyQueued;
    }

    /** Slots held now. */
    int inUse() {
        lock.lock();
        try {
            return inUse;
        } finally {
            lock.unlock();
        }
    }

    /**
     * What the shares are now, all read at one moment: the slots in use, the slots held and the
     * invocations waiting by party, and all invocations waiting. For checks and diagnostics.
     */
    record Snapshot(int inUse, Map<String, Integer> running, Map<String, Integer> queued, int waiting) {
    }

    /** The shares now (see {@link Snapshot}). */
    Snapshot snapshot() {
        lock.lock();
        try {
            return new Snapshot(inUse, Map.copyOf(running), Map.copyOf(queuedByParty), queue.size());
        } finally {
            lock.unlock();
        }
    }

    /**
     * Takes a slot for {@code party}: at once if one is free and the party is within its share, else
     * after waiting at most {@code timeoutNanos} in the queue, unless the queue or the party's share
     * of it is full.
     */
    Outcome acquire(String party, long timeoutNanos) throws InterruptedException {
        lock.lock();
        try {
            if (inUse < slots && count(running, party) < perPartySlots) {
                grant(party);
                return Outcome.GRANTED;
            }
            if (queue.size() >= maxQueued || count(queuedByParty, party) >= perPartyQueued) {
                return Outcome.QUEUE_FULL;
            }
            Waiter w = new Waiter(party, lock.newCondition());
            queue.add(w);
            add(queuedByParty, party, 1);
            long left = timeoutNanos;
            try {
                while (!w.granted && left > 0) {
                    left = w.signal.awaitNanos(left);
                }
            } catch (InterruptedException e) {
                if (w.granted) { // handed a slot as it was interrupted: the caller will not use it, so hand it on
                    release(party);
                }
                throw e;
            } finally {
                if (!w.granted) { // timed out or interrupted: leave the queue
                    queue.remove(w);
                    add(queuedByParty, party, -1);
                }
            }
            return w.granted ? Outcome.GRANTED : Outcome.TIMED_OUT;
        } finally {
            lock.unlock();
        }
    }

    /** Gives back a slot {@code party} was {@linkplain Outcome#GRANTED granted}, and hands it on. */
    void release(String party) {
        lock.lock();
        try {
            inUse--;
            add(running, party, -1);
            while (inUse < slots) {
                Waiter next = null;
                int fewest = Integer.MAX_VALUE;
                for (Waiter w : queue) {
                    int held = count(running, w.party);
                    if (held < perPartySlots && held < fewest) {
                        next = w;
                        fewest = held;
                    }
                }
                if (next == null) {
                    return;
                }
                queue.remove(next);
                add(queuedByParty, next.party, -1);
                grant(next.party);
                next.granted = true;
                next.signal.signal();
            }
        } finally {
            lock.unlock();
        }
    }

    private void grant(String party) {
        inUse++;
        add(running, party, 1);
    }

    private static int count(Map<String, Integer> counts, String party) {
        return counts.getOrDefault(party, 0);
    }

    private static void add(Map<String, Integer> counts, String party, int delta) {
        counts.compute(party, (p, n) -> {
            int now = (n == null ? 0 : n) + delta;
            return now <= 0 ? null : now;
        });
    }

    /** An invocation waiting for a slot. */
    private static final class Waiter {
        final String party;
        final Condition signal;
        boolean granted;

        Waiter(String party, Condition signal) {
            this.party = party;
            this.signal = signal;
        }
    }
}
