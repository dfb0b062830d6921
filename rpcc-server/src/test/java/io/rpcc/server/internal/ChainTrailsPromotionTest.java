package io.rpcc.server.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.rpcc.core.BranchId;
import io.rpcc.core.ChainingFunctionSource;
import io.rpcc.core.Metadata;
import io.rpcc.core.internal.wire.ChainHeader;
import io.rpcc.core.internal.wire.ChainIdentity;
import io.rpcc.core.internal.wire.ChainLimits;
import io.rpcc.core.internal.wire.ChainSecret;
import io.rpcc.core.internal.wire.ChainSoFar;
import io.rpcc.core.internal.wire.Credit;
import io.rpcc.core.internal.wire.HeartbeatBudget;
import io.rpcc.core.internal.wire.NodeAddress;
import io.rpcc.core.internal.wire.ReturnRoute;
import io.rpcc.core.internal.wire.TxFrames;
import io.rpcc.core.internal.wire.TxStamp;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * How a PROMOTE of a running atomic chain uses a node's trails: it is taken only with the chain's
 * secret, from a peer that sent the chain here, once, and only as a promotion the originator could
 * make (standard to its own primary); it names where the chain went on (to pass it on to); a hop
 * sent on afterwards carries the promoted stamp; one that overtook its request leaves a mark that
 * request takes, from the same peer only.
 */
class ChainTrailsPromotionTest {
    static final long BUDGET = TimeUnit.SECONDS.toNanos(5);
    static final TxStamp STANDARD = new TxStamp(false, 40, 7);
    static final TxStamp PRIMARY = STANDARD.promoted(12);
    final ChainTrails trails = new ChainTrails();
    final ChainSecret secret = ChainSecret.random();

    private ChainHeader header(long id, TxStamp stamp) {
        NodeAddress client = new NodeAddress("client", "127.0.0.1", 4000);
        return new ChainHeader(new ChainIdentity(id, secret, client, 1),
                new ChainSoFar(2, List.of(), List.of(), List.of(), Metadata.empty()), "f", ChainingFunctionSource.NONE,
                Credit.ONE, new ReturnRoute(client, List.of(), BranchId.root()),
                new ChainLimits(10, BUDGET, HeartbeatBudget.NONE)).withTx(stamp);
    }

    private TxFrames.Promote promote(long id, ChainSecret s, TxStamp stamp) {
        return new TxFrames.Promote(id, s, "client", 1, stamp);
    }

    @Test
    void aPromotionFromTheChainsSenderIsTakenOnceAndGoesWhereTheChainWent() {
        long now = System.nanoTime();
        ChainHeader h = header(1, STANDARD);
        assertNotNull(trails.arrive(h, now, "peer-1"));
        assertTrue(trails.forwarding(h, "s3", now));
        assertTrue(trails.forwarding(h, "s4", now)); // (a split: s3 is one branch, s4 the next)
        assertNull(trails.promote(promote(1, ChainSecret.random(), PRIMARY), now, "peer-1"), "another secret: forged");
        assertNull(trails.promote(promote(1, secret, PRIMARY), now, "peer-2"), "a peer that never sent the chain here");
        assertFalse(trails.promote(promote(1, secret, new TxStamp(true, 0, 8)), now, "peer-1").taken(),
                "another originator's primary is no promotion of this chain");
        assertFalse(trails.promote(promote(1, secret, new TxStamp(false, 0, 7)), now, "peer-1").taken(),
                "a standard stamp is no promotion");
        assertNull(trails.promotedStamp(h), "nothing taken yet");
        ChainTrails.Promoted p = trails.promote(promote(1, secret, PRIMARY), now, "peer-1");
        assertTrue(p.taken());
        assertEquals("s4", p.next());
        assertEquals(Set.of("s3"), p.others());
        assertEquals(PRIMARY, trails.promotedStamp(h));
        assertEquals(PRIMARY, Promotions.forwarding(trails, h).tx(), "a hop sent on from here goes promoted");
        assertFalse(trails.promote(promote(1, secret, PRIMARY), now, "peer-1").taken(), "passed on once");
        assertFalse(trails.promote(promote(1, secret, new TxStamp(true, 0, 7)), now, "peer-1").taken(),
                "a primary is not promoted again");
    }

    @Test
    void aChainThatArrivedPrimaryPassesTheSamePromotionOnOnceAndNoOther() {
        long now = System.nanoTime();
        ChainHeader h = header(2, PRIMARY);
        trails.arrive(h, now, "peer-1");
        trails.forwarding(h, "s3", now);
        assertNull(trails.promotedStamp(h), "its header has the stamp");
        assertSame(h, Promotions.forwarding(trails, h));
        assertTrue(trails.promote(promote(2, secret, PRIMARY), now, "peer-1").taken(), "the same stamp goes on");
        assertFalse(trails.promote(promote(2, secret, new TxStamp(true, 1, 7)), now, "peer-1").taken());
    }

    @Test
    void aPromotionThatOvertookItsRequestIsTakenByItFromTheSamePeerOnly() {
        long now = System.nanoTime();
        ChainTrails.Promoted mark = trails.promote(promote(3, secret, PRIMARY), now, "peer-1");
        assertFalse(mark.taken(), "a chain not seen here: kept as a mark");
        assertNull(mark.next());
        assertEquals(PRIMARY, trails.promotionFor(header(3, STANDARD), "peer-1"));
        assertNull(trails.promotionFor(header(3, STANDARD), "peer-1"), "taken once");

        trails.promote(promote(4, secret, PRIMARY), now, "peer-2");
        assertNull(trails.promotionFor(header(4, STANDARD), "peer-1"), "a mark another peer left is not taken");
        trails.promote(promote(5, ChainSecret.random(), PRIMARY), now, "peer-1");
        assertNull(trails.promotionFor(header(5, STANDARD), "peer-1"), "nor one with another secret");
        assertNull(trails.promotionFor(header(6, null), "peer-1"), "a plain chain has none");
    }

    @Test
    void aPlainChainIsNeverPromoted() {
        long now = System.nanoTime();
        ChainHeader h = header(7, null);
        trails.arrive(h, now, "peer-1");
        trails.forwarding(h, "s3", now);
        assertNull(trails.promote(promote(7, secret, PRIMARY), now, "peer-1"), "it has no sender of an atomic chain");
        assertSame(h, Promotions.forwarding(trails, h));
    }
}
