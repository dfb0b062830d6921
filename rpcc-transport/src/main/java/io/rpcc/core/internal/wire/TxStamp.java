package io.rpcc.core.internal.wire;

import io.rpcc.core.spi.EngineSpi;

/**
 * The priority of an atomic chain's transaction, as Waldo's scheduler orders them: a
 * <em>primary</em> transaction (its originator's oldest outstanding one) comes before any standard
 * one; among primaries, the one whose originator committed a primary longest ago comes first (round
 * robin); among standard ones, the older root Lamport timestamp comes first (wound-wait). Ties go to
 * the smaller {@link #origin} and then the smaller chain number, so that any two transactions are
 * ordered the same way at every node.
 *
 * <p>It travels in the header of every hop of an atomic chain; a restarted chain keeps its stamp
 * (it keeps its age), a promoted one carries its new primary stamp from its next hop on.
 *
 * @param primary whether the transaction is its originator's primary
 * @param order for a standard transaction, the root's Lamport timestamp when the chain started; for a
 *     primary, the root's Lamport time of its last primary commit (smaller is older, so first)
 * @param origin a number that names the originator (a hash of its node name and incarnation), the
 *     first tie-break
 */
@EngineSpi
public record TxStamp(boolean primary, long order, long origin) implements Comparable<TxStamp> {
    /**
     * Negative if this transaction comes first (is older, so it wounds {@code other}), positive if
     * {@code other} does, zero if they tie (then the smaller chain number, then the smaller attempt, comes first).
     */
    @Override
    public int compareTo(TxStamp other) {
        if (primary != other.primary) {
            return primary ? -1 : 1;
        }
        int byOrder = Long.compare(order, other.order);
        return byOrder != 0 ? byOrder : Long.compare(origin, other.origin);
    }

    /** This stamp as its originator's primary, whose last primary committed at Lamport time {@code lastPrimaryCommit}. */
    public TxStamp promoted(long lastPrimaryCommit) {
        return new TxStamp(true, lastPrimaryCommit, origin);
    }
}
