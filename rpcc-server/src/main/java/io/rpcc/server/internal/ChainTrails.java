package io.rpcc.server.internal;

import io.rpcc.core.internal.chain.HopControl;
import io.rpcc.core.internal.wire.ChainHeader;
import io.rpcc.core.internal.wire.ChainSecret;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;

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
 * originator of a chain needs no trail: it sends its cancel to the chain's first server.) At most
 * {@link #MAX_ENTRIES} are kept (the oldest are forgotten first). The first secret seen for a chain
 * is the one a cancel must carry; a cancel with another one is forged.
 */
final class ChainTrails {
    /** The most chains remembered; beyond it the oldest are forgotten (then they cannot be cancelled past this node). */
    public static final int MAX_ENTRIES = 1 << 16;
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
    }

    /** What is remembered of one chain. */
    private static final class Trail {
        final ChainSecret secret;
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
     */
    public record Cancelled(String next, List<HopControl> hops, long budgetNanos, Set<String> others) {
    }

    private final LinkedHashMap<Key, Trail> entries = new LinkedHashMap<>() {
        @Override
        protected boolean removeEldestEntry(Map.Entry<Key, Trail> eldest) {
            return size() > MAX_ENTRIES;
        }
    };
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
            e = new Trail(h.secret(), nowNanos);
            entries.put(key, e);
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
            e = new Trail(h.secret(), nowNanos);
            entries.put(key, e);
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
        sweepIfDue(nowNanos);
        Key key = new Key(origin, chainId);
        Trail e = entries.get(key);
        if (e == null) {
            // Remembered even with no budget left: a request still on its way carries the budget it
            // left with, counted from its arrival, so it could still start here.
            e = new Trail(secret, nowNanos);
            e.extend(nowNanos, budgetNanos, graceNanos);
            e.cancelled = true;
            entries.put(key, e);
            return new Cancelled(null, List.of(), budgetNanos, Set.of());
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

    /** Chains remembered now (forgetting the expired ones first). */
    public synchronized int size() {
        sweep(System.nanoTime());
        return entries.size();
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
        entries.values().removeIf(e -> e.hops.isEmpty() && nowNanos - e.expiresNanos >= 0);
    }
}
