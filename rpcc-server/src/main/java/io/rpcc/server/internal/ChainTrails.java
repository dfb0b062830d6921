package io.rpcc.server.internal;

import io.rpcc.core.internal.chain.HopControl;
import io.rpcc.core.internal.wire.ChainHeader;
import io.rpcc.core.internal.wire.ChainSecret;
import io.rpcc.core.internal.transport.NodeTransport;
import io.rpcc.core.internal.wire.CancelFrame;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;

/**
 * What a server remembers, briefly, about the chains that passed through it, so that a cancel can
 * follow a chain's trail: for each chain ({@code origin#id}), its secret, the node this node last
 * sent it on to (and the others it sent it to before: a split sends it to several), the hops of it running here, and whether it was cancelled. A cancel that arrives
 * before the hop it should stop (it overtook the request on another connection) leaves a cancelled
 * entry, and the request is refused when it comes.
 *
 * <p>An entry lives as long as the chain's budget plus {@link #GRACE_NANOS} (at most
 * {@link #MAX_RETENTION_NANOS}) and while a hop of the chain still works here, except that a chain
 * that ended here (its last hop, with nothing sent on) is forgotten when that hop is quiet. (The
 * originator of a chain needs no trail: it sends its cancel to the chain's first server.) The first
 * secret seen for a chain is the one a cancel must carry; a cancel with another one is forged.
 *
 * <p>Bounds, per peer (the node that sent the request or cancel, {@code NodeTransport.peerOf}) and
 * node-wide: at most {@link #MAX_ENTRIES} trails of chains whose requests came here, of them at most
 * {@link #MAX_ENTRIES_PER_PEER} of one peer; over either, the oldest trail of the peer that holds the
 * most goes first, so a peer can make room only at the cost of a peer holding at least as many as
 * it does. A cancel of a chain never seen here is kept apart, as a small cancelled mark (so that its
 * request is refused if it comes after all): at most {@link #MAX_UNKNOWN_CANCELS_PER_PEER} per peer
 * and {@link #MAX_UNKNOWN_CANCELS} node-wide, the oldest of the peer with the most going first. Those
 * marks never take the room of a trail: a flood of cancels for made-up chains forgets only the
 * flooder's own marks (counted, {@link #forgottenCancels()}).
 */
final class ChainTrails {
    /**
     * The most chains remembered node-wide; beyond it the oldest of the peer holding the most are
     * forgotten (then they cannot be cancelled past this node).
     */
    public static final int MAX_ENTRIES = 1 << 16;
    /** The most chains remembered for the requests of one peer. */
    public static final int MAX_ENTRIES_PER_PEER = MAX_ENTRIES / 2;
    /** The most cancels of chains never seen here remembered node-wide. */
    public static final int MAX_UNKNOWN_CANCELS = 1 << 14;
    /** The most cancels of chains never seen here remembered for one peer. */
    public static final int MAX_UNKNOWN_CANCELS_PER_PEER = 1 << 10;
    /** The longest a chain is remembered after its last hop here ended, whatever budget it claims. */
    public static final long MAX_RETENTION_NANOS = TimeUnit.MINUTES.toNanos(10);
    /**
     * How long a chain is remembered beyond its budget: the originator's timeout fires when the
     * budget is spent, and its cancel must still find the trail to hops that overran the deadline.
     */
    public static final long GRACE_NANOS = TimeUnit.SECONDS.toNanos(5);
    private final long graceNanos;
    private static final long SWEEP_INTERVAL_NANOS = TimeUnit.SECONDS.toNanos(1);

    /** A chain, named by its originator and number there. */
    private record Key(String origin, long chainId) {
        // by hand, the number first: the record's generated equals goes through a method handle per
        // component, and every hop and every chain forgotten looks a key up
        @Override
        public boolean equals(Object o) {
            return o instanceof Key k && k.chainId == chainId && java.util.Objects.equals(k.origin, origin);
        }

        @Override
        public int hashCode() {
            return java.util.Objects.hashCode(origin) * 31 + Long.hashCode(chainId);
        }
    }

    /** What is remembered of one chain. */
    private static final class Trail {
        final ChainSecret secret;
        String peer = NodeTransport.LOCAL_PEER;
        long expiresNanos;
        String next;
        Set<String> others = Set.of(); // nodes it was sent to before next (a split's branches, the merge host)
        boolean cancelled;
        boolean requested;
        final List<HopControl> hops = new ArrayList<>(1);

        Trail(ChainSecret secret, long expiresNanos) {
            this.secret = secret;
            this.expiresNanos = expiresNanos;
        }

        void extend(long nowNanos, long budgetNanos, long graceNanos) {
            long keep = Math.min(Math.max(budgetNanos, 0), MAX_RETENTION_NANOS - graceNanos) + graceNanos;
            expiresNanos = Math.max(expiresNanos, nowNanos + keep);
        }
    }

    /**
     * What a cancel found.
     *
     * @param next the node the chain was sent on to from here, or {@code null}
     * @param hops the hops of the chain working here, to interrupt
     * @param budgetNanos what is left of the chain's budget, for the notice sent on
     * @param others the other nodes the chain was sent on to from here, before {@code next} (the
     *     branches of a split and its merge host), to pass the notice on to too
     * @param overShare the cancel was of a chain never seen here, from a peer that already had its
     *     most such cancels remembered: it took the place of that peer's oldest (a flood of made-up
     *     cancels; held against the connection)
     */
    public record Cancelled(String next, List<HopControl> hops, long budgetNanos, Set<String> others,
                            boolean overShare) {
        Cancelled(String next, List<HopControl> hops, long budgetNanos, Set<String> others) {
            this(next, hops, budgetNanos, others, false);
        }
    }

    /**
     * Trails kept per peer within a bound per peer and node-wide; over either, the oldest trail of
     * the peer holding the most (the one over its own bound, if any) is forgotten.
     */
    private static final class FairTable {
        private final int maxTotal;
        private final int maxPerPeer;
        private final HashMap<Key, Trail> all = new HashMap<>();
        private final HashMap<String, LinkedHashMap<Key, Trail>> byPeer = new HashMap<>();
        /**
         * The last peer table that emptied, kept for the next peer that needs one: a peer with a few
         * chains in flight empties its table again and again, and a new table would grow (and
         * rehash) to the same size each time. One at most, whatever the number of peers.
         */
        private LinkedHashMap<Key, Trail> spare;
        private long forgotten;

        FairTable(int maxTotal, int maxPerPeer) {
            this.maxTotal = maxTotal;
            this.maxPerPeer = maxPerPeer;
        }

        Trail get(Key key) {
            return all.get(key);
        }

        /** Keeps {@code t}; true if that forgot an older one of {@code peer}'s, over its own bound. */
        boolean put(Key key, Trail t, String peer) {
            Trail old = all.put(key, t); // (one look-up: most keys are new)
            if (old != null) {
                forgetInPeer(key, old.peer);
            }
            t.peer = peer;
            LinkedHashMap<Key, Trail> mine = byPeer.get(peer);
            if (mine == null) {
                mine = spare != null ? spare : new LinkedHashMap<>();
                spare = null;
                byPeer.put(peer, mine);
            }
            mine.put(key, t);
            boolean overOwn = mine.size() > maxPerPeer;
            if (overOwn) {
                forgetEldest(mine);
            }
            while (all.size() > maxTotal) {
                forgetEldest(largest());
            }
            return overOwn;
        }

        void remove(Key key) {
            Trail t = all.remove(key);
            if (t != null) {
                forgetInPeer(key, t.peer);
            }
        }

        private void forgetInPeer(Key key, String peer) {
            LinkedHashMap<Key, Trail> of = byPeer.get(peer);
            of.remove(key);
            if (of.isEmpty()) {
                byPeer.remove(peer);
                spare = of;
            }
        }

        private LinkedHashMap<Key, Trail> largest() {
            LinkedHashMap<Key, Trail> most = null;
            for (LinkedHashMap<Key, Trail> m : byPeer.values()) {
                if (most == null || m.size() > most.size()) {
                    most = m;
                }
            }
            return most;
        }

        private void forgetEldest(LinkedHashMap<Key, Trail> of) {
            remove(of.keySet().iterator().next());
            forgotten++;
        }

        void removeIf(Predicate<Trail> expired) {
            for (var it = byPeer.values().iterator(); it.hasNext(); ) {
                LinkedHashMap<Key, Trail> m = it.next();
                for (var e = m.entrySet().iterator(); e.hasNext(); ) {
                    Map.Entry<Key, Trail> entry = e.next();
                    if (expired.test(entry.getValue())) {
                        e.remove();
                        all.remove(entry.getKey());
                    }
                }
                if (m.isEmpty()) {
                    it.remove();
                }
            }
        }

        int size() {
            return all.size();
        }

        int peers() {
            return byPeer.size();
        }
    }

    private final FairTable entries = new FairTable(MAX_ENTRIES, MAX_ENTRIES_PER_PEER);
    /** Cancels of chains not seen here (yet): cancelled marks, kept apart from the trails. */
    private final FairTable unknownCancels = new FairTable(MAX_UNKNOWN_CANCELS, MAX_UNKNOWN_CANCELS_PER_PEER);
    private long lastSweep = System.nanoTime();

    /** A node's table, remembering chains {@link #GRACE_NANOS} beyond their budget. */
    public ChainTrails() {
        this(GRACE_NANOS);
    }

    /** A table remembering chains {@code graceNanos} beyond their budget. */
    ChainTrails(long graceNanos) {
        this.graceNanos = graceNanos;
    }

    /**
     * A hop request for {@code h} arrived: registers its hop and returns its control, or
     * {@code null} if the chain was cancelled here (the request must be refused).
     */
    public synchronized HopControl arrive(ChainHeader h, long nowNanos) {
        return arrive(h, nowNanos, NodeTransport.LOCAL_PEER);
    }

    /**
     * As {@link #arrive(ChainHeader, long)}, for a request that {@code peer} sent: a new trail counts
     * in that peer's share.
     */
    public synchronized HopControl arrive(ChainHeader h, long nowNanos, String peer) {
        sweepIfDue(nowNanos);
        HopControl control = new HopControl(nowNanos, h.budgetNanos(), h.heartbeat());
        Key key = new Key(h.origin(), h.chainId());
        Trail e = entries.get(key);
        if (e != null && !e.secret.matches(h.secret())) {
            if (e.requested || !e.hops.isEmpty()) {
                return control; // another secret came first: this request is not tracked
            }
            entries.remove(key); // a cancel with a wrong secret came first (forged): the request wins
            e = null;
        }
        if (e == null) {
            Trail mark = unknownCancels.get(key);
            if (mark != null) {
                unknownCancels.remove(key);
                if (mark.secret.matches(h.secret())) {
                    e = mark; // the chain was cancelled before its request got here
                }
            }
            if (e == null) {
                e = new Trail(h.secret(), nowNanos);
            }
            entries.put(key, e, peer);
        }
        if (e.cancelled) {
            return null;
        }
        e.requested = true;
        e.extend(nowNanos, h.budgetNanos(), graceNanos);
        e.hops.add(control);
        return control;
    }

    /**
     * The hop of {@code h} that {@code control} controls has ended here (it is quiet). A chain that
     * this node did not send on (it ended here) is forgotten at once: no cancel needs its trail.
     */
    public synchronized void left(ChainHeader h, HopControl control) {
        Key key = new Key(h.origin(), h.chainId());
        Trail e = entries.get(key);
        if (e != null && e.hops.remove(control)) {
            if (e.hops.isEmpty() && e.next == null && !e.cancelled) {
                entries.remove(key);
            } else {
                e.extend(System.nanoTime(), control.remainingNanos(System.nanoTime()), graceNanos);
            }
        }
    }

    /**
     * The chain of {@code h} is about to be sent to {@code server} with {@code budgetNanos} left:
     * remembers where it went; {@code false} if the chain was cancelled here (it must not be sent).
     */
    public synchronized boolean forwarding(ChainHeader h, String server, long nowNanos) {
        sweepIfDue(nowNanos);
        Key key = new Key(h.origin(), h.chainId());
        Trail e = entries.get(key);
        if (e == null) {
            Trail mark = unknownCancels.get(key);
            if (mark != null && mark.secret.matches(h.secret())) {
                return false; // cancelled before it got here
            }
            e = new Trail(h.secret(), nowNanos);
            entries.put(key, e, NodeTransport.LOCAL_PEER);
        } else if (!e.secret.matches(h.secret())) {
            return true; // not the chain this node tracks under that name
        }
        if (e.cancelled) {
            return false;
        }
        if (e.next != null && !e.next.equals(server) && !e.others.contains(e.next)) {
            Set<String> others = new LinkedHashSet<>(e.others);
            others.add(e.next);
            e.others = others;
        }
        e.next = server;
        e.extend(nowNanos, h.budgetNanos(), graceNanos);
        return true;
    }

    /**
     * A cancel of {@code origin#chainId} with {@code secret} and {@code budgetNanos} left arrived:
     * marks the chain cancelled. Returns what to stop and
     * where to send the notice on, or {@code null} if the secret is not the chain's (a forged cancel).
     * A chain not seen yet is remembered as cancelled, for its budget plus the grace (also when none
     * is left), so that its request is refused.
     */
    public synchronized Cancelled cancel(String origin, long chainId, ChainSecret secret, long budgetNanos,
                                         long nowNanos) {
        return cancel(new Key(origin, chainId), secret, budgetNanos, nowNanos, NodeTransport.LOCAL_PEER);
    }

    /**
     * As {@link #cancel(String, long, ChainSecret, long, long)}, for a cancel that {@code peer} sent:
     * the mark of a chain not seen here counts in that peer's share of such marks, apart from the
     * trails.
     */
    public synchronized Cancelled cancel(CancelFrame cancel, long nowNanos, String peer) {
        return cancel(new Key(cancel.origin(), cancel.chainId()), cancel.secret(), cancel.budgetNanos(), nowNanos,
                peer);
    }

    private Cancelled cancel(Key key, ChainSecret secret, long budgetNanos, long nowNanos, String peer) {
        sweepIfDue(nowNanos);
        Trail e = entries.get(key);
        if (e == null) {
            Trail mark = unknownCancels.get(key);
            if (mark != null) {
                return mark.secret.matches(secret) ? new Cancelled(null, List.of(), budgetNanos, Set.of()) : null;
            }
            // Remembered even with no budget left: a request still on its way carries the budget it
            // left with, counted from its arrival, so it could still start here.
            e = new Trail(secret, nowNanos);
            e.extend(nowNanos, budgetNanos, graceNanos);
            e.cancelled = true;
            boolean overShare = unknownCancels.put(key, e, peer);
            return new Cancelled(null, List.of(), budgetNanos, Set.of(), overShare);
        }
        if (!e.secret.matches(secret)) {
            return null;
        }
        if (e.cancelled) {
            return new Cancelled(null, List.of(), budgetNanos, Set.of()); // already passed on
        }
        e.cancelled = true;
        long left = e.expiresNanos == Long.MAX_VALUE ? ChainHeader.NO_DEADLINE : e.expiresNanos - nowNanos;
        Set<String> others = new LinkedHashSet<>(e.others);
        others.remove(e.next);
        return new Cancelled(e.next, List.copyOf(e.hops), Math.min(left, budgetNanos), others);
    }

    /** Chains remembered now, cancels of chains not seen here included (forgetting the expired ones first). */
    public synchronized int size() {
        sweep(System.nanoTime());
        return entries.size() + unknownCancels.size();
    }

    /** Trails of chains whose requests came here, now (forgetting the expired ones first). */
    public synchronized int trails() {
        sweep(System.nanoTime());
        return entries.size();
    }

    /**
     * Cancels of chains not seen here that were forgotten before their time to make room for newer
     * ones of the same peer (or of a peer holding more): a flood of cancels for made-up chains.
     */
    public synchronized long forgottenCancels() {
        return unknownCancels.forgotten;
    }

    /** Trails forgotten before their time to make room (their chains can no longer be cancelled past here). */
    public synchronized long forgottenTrails() {
        return entries.forgotten;
    }

    /** Forgets the expired entries if the last sweep is a while ago (the node's periodic sweep calls this). */
    synchronized void expire(long nowNanos) {
        sweepIfDue(nowNanos);
    }

    private void sweepIfDue(long nowNanos) {
        if (nowNanos - lastSweep >= SWEEP_INTERVAL_NANOS) {
            sweep(nowNanos);
        }
    }

    private void sweep(long nowNanos) {
        lastSweep = nowNanos;
        Predicate<Trail> expired = e -> e.hops.isEmpty() && nowNanos - e.expiresNanos >= 0;
        entries.removeIf(expired);
        unknownCancels.removeIf(expired);
    }
}
