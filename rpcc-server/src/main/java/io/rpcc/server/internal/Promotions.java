package io.rpcc.server.internal;

import io.rpcc.core.internal.chain.Node;
import io.rpcc.core.internal.wire.ChainHeader;
import io.rpcc.core.internal.wire.ChainRequest;
import io.rpcc.core.internal.wire.TxFrames;
import io.rpcc.core.internal.wire.TxStamp;
import io.rpcc.server.internal.atomic.LocalTransactions;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The promotions of running atomic chains at a server (Waldo's fairness: a client's oldest running
 * chain becomes its primary as soon as its previous primary ends). A PROMOTE follows the chain's
 * trail as a CANCEL does ({@link ChainTrails}): each node takes the new stamp for the chain's
 * participant here ({@link LocalTransactions#promote}: its parked lock requests may now wound
 * holders and move up their queues) and passes the frame on to the nodes it sent the chain on to;
 * a hop sent on after the promotion carries the new stamp ({@link #forwarding}); a request that a
 * PROMOTE overtook (it came on another connection) takes the stamp when it arrives ({@link #arriving}).
 *
 * <p>What a peer can do with a PROMOTE is bounded: it is taken only with the chain's secret, from a
 * peer that sent the chain here, once per chain, and only if it makes a standard stamp its own
 * originator's primary ({@link #promotes}): what that peer could have put in the header of the
 * requests it sent anyway. Thread-safe.
 */
final class Promotions {
    private final Node node;
    private final ChainTrails trails;
    private final LocalTransactions engine;
    private final AtomicLong taken = new AtomicLong();

    Promotions(Node node, ChainTrails trails, LocalTransactions engine) {
        this.node = node;
        this.trails = trails;
        this.engine = engine;
    }

    /**
     * Whether {@code to} is a promotion of {@code from} as an originator makes one: a standard stamp
     * becomes a primary of the same originator (which comes first; a primary is never promoted again).
     */
    static boolean promotes(TxStamp from, TxStamp to) {
        return !from.primary() && to.primary() && to.origin() == from.origin();
    }

    /**
     * A PROMOTE from {@code peer} (on an event loop): the participant here takes the stamp, and the
     * frame goes on along the chain's trail. {@code false} if it is forged (not the chain's secret,
     * or not from a peer that sent the chain here) or over the peer's share of marks for unknown
     * chains; one that changes nothing (a chain ended or never seen here, a second promotion) is
     * ignored.
     */
    boolean promote(TxFrames.Promote promote, String peer) {
        ChainTrails.Promoted found = trails.promote(promote, System.nanoTime(), peer);
        if (found == null) {
            return false;
        }
        if (!found.taken()) {
            return !found.overShare();
        }
        taken.incrementAndGet();
        engine.promote(promote.key(), promote.stamp(), true);
        if (found.next() != null) {
            node.passPromote(found.next(), promote);
        }
        for (String other : found.others()) { // a split's branches and merge host
            node.passPromote(other, promote);
        }
        return !found.overShare();
    }

    /**
     * {@code request}, arriving from {@code peer}, with the promoted stamp a PROMOTE of its chain
     * left here before it, if one did (the PROMOTE overtook it); else {@code request} itself.
     */
    ChainRequest arriving(ChainRequest request, String peer) {
        ChainHeader h = request.header();
        if (h.tx() == null) {
            return request;
        }
        TxStamp s = trails.promotionFor(h, peer);
        return s == null ? request : request.withHeader(h.withTx(s));
    }

    /**
     * {@code h}, about to be sent on from here (after {@link ChainTrails#forwarding} in {@code trails}), with the stamp
     * its chain was promoted to here, if it was; else {@code h} itself. (A PROMOTE taken after this
     * is passed on to where the chain went, and that node takes it when the request gets there.)
     */
    static ChainHeader forwarding(ChainTrails trails, ChainHeader h) {
        if (h.tx() == null) {
            return h;
        }
        TxStamp s = trails.promotedStamp(h);
        return s == null ? h : h.withTx(s);
    }

    /** The PROMOTEs taken here (each passed on along its chain's trail). */
    long taken() {
        return taken.get();
    }
}
