package io.rpcc.server.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.rpcc.core.BranchId;
import io.rpcc.core.ChainingFunctionSource;
import io.rpcc.core.Metadata;
import io.rpcc.core.internal.chain.HopControl;
import io.rpcc.core.internal.wire.CancelFrame;
import io.rpcc.core.internal.wire.ChainHeader;
import io.rpcc.core.internal.wire.ChainSoFar;
import io.rpcc.core.internal.wire.ChainIdentity;
import io.rpcc.core.internal.wire.ReturnRoute;
import io.rpcc.core.internal.wire.ChainLimits;
import io.rpcc.core.internal.wire.HeartbeatBudget;
import io.rpcc.core.internal.wire.ChainSecret;
import io.rpcc.core.internal.wire.Credit;
import io.rpcc.core.internal.wire.NodeAddress;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;

/** What a node remembers of the chains that passed through it, and how a cancel uses it. */
class ChainTrailsTest {
    static final long SECOND = TimeUnit.SECONDS.toNanos(1);
    final ChainTrails trails = new ChainTrails(0); // no grace beyond the budget: expiry is testable at once
    final ChainSecret secret = ChainSecret.random();

    private ChainHeader header(long id, ChainSecret s, long budget) {
        return new ChainHeader(new ChainIdentity(id, s, new NodeAddress("client", "127.0.0.1", 4000), 1),
                new ChainSoFar(2, List.of(), List.of(), List.of(), Metadata.empty()), "f",
                        ChainingFunctionSource.NONE, Credit.ONE,
                new ReturnRoute(new NodeAddress("client", "127.0.0.1", 4000), List.of(), BranchId.root()),
                        new ChainLimits(10, budget, HeartbeatBudget.NONE));
    }

    @Test
    void aCancelFollowsTheTrailAndStopsTheHopsHere() {
        long now = System.nanoTime();
        ChainHeader h = header(1, secret, 5 * SECOND);
        HopControl hop = trails.arrive(h, now);
        assertNotNull(hop);
        assertTrue(trails.forwarding(h, "s3", now));
        ChainTrails.Cancelled c = trails.cancel("client", 1, secret, 4 * SECOND, now);
        assertEquals("s3", c.next());
        assertEquals(List.of(hop), c.hops());
        assertTrue(c.budgetNanos() <= 4 * SECOND);
        assertFalse(trails.forwarding(h, "s4", now), "a cancelled chain is not sent on");
        assertNull(trails.arrive(h, now), "a hop of a cancelled chain that comes back is refused");
        assertEquals(0, trails.cancel("client", 1, secret, SECOND, now).hops().size(), "passed on once");
    }

    @Test
    void aCancelThatOvertakesItsRequestRefusesTheRequest() {
        long now = System.nanoTime();
        ChainTrails.Cancelled c = trails.cancel("client", 2, secret, 5 * SECOND, now);
        assertNull(c.next());
        assertNull(trails.arrive(header(2, secret, 5 * SECOND), now), "the request came after its cancel");
        assertEquals(1, trails.size());
    }

    @Test
    void aForgedCancelIsRefusedAndStopsNothing() {
        long now = System.nanoTime();
        ChainHeader h = header(3, secret, 5 * SECOND);
        HopControl hop = trails.arrive(h, now);
        assertNull(trails.cancel("client", 3, ChainSecret.random(), 5 * SECOND, now), "wrong secret: forged");
        assertFalse(hop.isCancelled());
        // a forged cancel for a chain not seen yet cannot stop the real request either
        trails.cancel("client", 4, ChainSecret.random(), 5 * SECOND, now);
        assertNotNull(trails.arrive(header(4, secret, 5 * SECOND), now), "the real request runs");
        assertNull(trails.cancel("client", 4, ChainSecret.random(), SECOND, now), "and keeps its own secret");
    }

    @Test
    void aCancelWithoutBudgetLeftStillRefusesTheRequestThatItOvertook() {
        ChainTrails withGrace = new ChainTrails(ChainTrails.GRACE_NANOS);
        long now = System.nanoTime();
        assertNotNull(withGrace.cancel("client", 9, secret, 0, now), "the originator's timeout fired: no budget left");
        assertNull(withGrace.arrive(header(9, secret, 4 * SECOND), now),
                "the request left with budget, counted from its arrival: it must not start");
        assertEquals(1, withGrace.size(), "remembered for the grace");
    }

    @Test
    void entriesLastTheChainsBudgetAndWhileAHopWorksHere() throws Exception {
        long now = System.nanoTime();
        ChainHeader h = header(5, secret, TimeUnit.MILLISECONDS.toNanos(50));
        HopControl hop = trails.arrive(h, now);
        trails.forwarding(h, "s3", now); // sent on: the trail matters to a cancel
        Thread.sleep(100);
        assertEquals(1, trails.size(), "the hop still works here: a cancel must still find it");
        trails.left(h, hop);
        assertEquals(0, trails.size(), "budget spent and no hop here: forgotten");
        ChainHeader last = header(8, secret, 60 * SECOND);
        trails.left(last, trails.arrive(last, System.nanoTime()));
        assertEquals(0, trails.size(), "a chain that ended here is forgotten once its hop is quiet");
        trails.cancel("client", 6, secret, 0, System.nanoTime());
        assertEquals(0, trails.size(), "a cancel without budget left is forgotten after the grace (none here)");
    }

    @Test
    void theTableIsBoundedPerPeerAndNodeWide() {
        long now = System.nanoTime();
        for (int i = 0; i < ChainTrails.MAX_ENTRIES + 100; i++) {
            trails.forwarding(header(100 + i, secret, 60 * SECOND), "s1", now);
        }
        assertEquals(ChainTrails.MAX_ENTRIES_PER_PEER, trails.size(), "one peer holds at most its share");
        for (int i = 0; i < ChainTrails.MAX_ENTRIES; i++) {
            trails.arrive(header(1_000_000 + i, secret, 60 * SECOND), now, "address:10.0.0." + (1 + i % 3));
        }
        assertEquals(ChainTrails.MAX_ENTRIES, trails.size(), "node-wide");
        assertEquals(ChainTrails.MAX_ENTRIES, trails.trails());
    }

    @Test
    void cancelsOfUnknownChainsAreBoundedPerPeerAndNeverEvictATrail() {
        long now = System.nanoTime();
        HopControl real = trails.arrive(header(7, secret, 60 * SECOND), now, "address:10.0.0.1");
        trails.forwarding(header(7, secret, 60 * SECOND), "s3", now);
        for (int i = 0; i < 70_000; i++) {
            trails.cancel(new CancelFrame(10_000 + i, ChainSecret.random(), "made-up", 60 * SECOND), now,
                    "address:10.0.0.2");
        }
        assertEquals(1 + ChainTrails.MAX_UNKNOWN_CANCELS_PER_PEER, trails.size());
        assertEquals(70_000 - ChainTrails.MAX_UNKNOWN_CANCELS_PER_PEER, trails.forgottenCancels());
        assertEquals(0, trails.forgottenTrails());
        ChainTrails.Cancelled c = trails.cancel(new CancelFrame(7, secret, "client", SECOND), now, "address:10.0.0.1");
        assertEquals("s3", c.next(), "the real cancel still follows the trail");
        assertEquals(List.of(real), c.hops());
        trails.cancel(new CancelFrame(8, secret, "client", SECOND), now, "address:10.0.0.1");
        assertNull(trails.arrive(header(8, secret, SECOND), now, "address:10.0.0.1"),
                "a request after its cancel is still refused");
    }

    /**
     * A cancel of a chain never seen here is remembered; one past its peer's share is remembered too
     * (in place of that peer's oldest) but marked over the share, for the node to hold against the
     * connection it came on. Another peer's, a repeated one and a real chain's are not.
     */
    @Test
    void aCancelOfAnUnknownChainPastItsPeersShareIsMarkedOverShare() {
        long now = System.nanoTime();
        for (int i = 0; i < ChainTrails.MAX_UNKNOWN_CANCELS_PER_PEER; i++) {
            assertFalse(trails.cancel(new CancelFrame(20_000 + i, ChainSecret.random(), "made-up", 60 * SECOND), now,
                    "address:10.0.0.2").overShare(), "within the share: " + i);
        }
        ChainSecret again = ChainSecret.random();
        ChainTrails.Cancelled over = trails.cancel(new CancelFrame(30_000, again, "made-up", 60 * SECOND), now,
                "address:10.0.0.2");
        assertTrue(over.overShare(), "the first past the share");
        assertEquals(1, trails.forgottenCancels(), "it took the place of the peer's oldest");
        assertTrue(trails.cancel(new CancelFrame(30_001, ChainSecret.random(), "made-up", 60 * SECOND), now,
                "address:10.0.0.2").overShare(), "and the next");
        assertFalse(trails.cancel(new CancelFrame(40_000, ChainSecret.random(), "made-up", 60 * SECOND), now,
                "address:10.0.0.3").overShare(), "another peer's own share is empty");
        assertFalse(trails.cancel(new CancelFrame(30_000, again, "made-up", SECOND), now, "address:10.0.0.2").overShare(),
                "the same cancel again: already remembered, nothing new kept");

        trails.arrive(header(7, secret, 60 * SECOND), now, "address:10.0.0.2");
        ChainTrails.Cancelled real = trails.cancel(new CancelFrame(7, secret, "client", SECOND), now, "address:10.0.0.2");
        assertFalse(real.overShare(), "a chain seen here");
        assertEquals(1, real.hops().size());
    }

    @Test
    void cancellingInterruptsOnlyTheThreadsWorkingForTheHop() throws Exception {
        HopControl hop = new HopControl(System.nanoTime(), ChainHeader.NO_DEADLINE);
        CountDownLatch working = new CountDownLatch(1);
        AtomicBoolean interrupted = new AtomicBoolean();
        AtomicBoolean clearAfter = new AtomicBoolean();
        Thread t = Thread.ofVirtual().start(() -> {
            try (var scope = hop.enter()) {
                working.countDown();
                Thread.sleep(10_000);
            } catch (InterruptedException e) {
                interrupted.set(true);
            }
            clearAfter.set(!Thread.currentThread().isInterrupted());
        });
        working.await();
        hop.cancel();
        t.join(5000);
        assertTrue(interrupted.get());
        assertTrue(hop.isCancelled());
        assertTrue(clearAfter.get(), "no interrupt is left on the thread once it stops working for the hop");
        hop.cancel(); // no thread works for it any more: nothing to interrupt
        assertFalse(Thread.currentThread().isInterrupted());
    }
}
