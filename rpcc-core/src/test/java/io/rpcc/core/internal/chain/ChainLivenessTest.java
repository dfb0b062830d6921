package io.rpcc.core.internal.chain;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.rpcc.core.BranchId;
import io.rpcc.core.internal.wire.ChainSecret;
import io.rpcc.core.internal.wire.HeartbeatFrame;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** How the originator tells from heartbeats which branches of a chain it expects, and when the chain is broken. */
class ChainLivenessTest {
    static final long S = TimeUnit.SECONDS.toNanos(1);
    static final ChainSecret SECRET = ChainSecret.random();

    private static HeartbeatFrame beat(int hop, BranchId b, Integer... siblings) {
        return new HeartbeatFrame(1, SECRET, hop, "n" + hop, b, List.of(siblings));
    }

    @Test
    void aChainIsBrokenOnlyWhenSilentLongerThanBrokenAfter() {
        ChainLiveness l = new ChainLiveness(BranchId.root(), 1, "s1", 6 * S, 0);
        assertNull(l.silent(6 * S));
        ChainLiveness.Silence s = l.silent(6 * S + 1);
        assertNotNull(s);
        assertFalse(s.heard());
        assertEquals("s1", s.host());
        l.heartbeat(beat(2, BranchId.root()), 5 * S);
        assertNull(l.silent(11 * S));
        l.heard(10 * S); // a reply or QUIET: a sign of life while the chain has not split
        assertNull(l.silent(16 * S));
        s = l.silent(16 * S + 1);
        assertEquals(2, s.hop());
        assertEquals("n2", s.host());
        assertTrue(s.heard());
    }

    @Test
    void aSplitMakesEveryBranchExpectedAndASilentBranchBreaksTheChainWhileItsSiblingsBeat() {
        ChainLiveness l = new ChainLiveness(BranchId.root(), 1, "s1", 6 * S, 0);
        l.heartbeat(beat(1, BranchId.root()), S);
        l.heartbeat(beat(2, BranchId.of(1), 3), 2 * S);
        assertEquals(Set.of(BranchId.of(1), BranchId.of(2), BranchId.of(3)), Set.copyOf(l.expected()));
        for (long t = 3; t <= 9; t++) {
            l.heartbeat(beat(2, BranchId.of(1), 3), t * S);
            l.heartbeat(beat(3, BranchId.of(3), 3), t * S);
        }
        l.heard(9 * S); // replies do not speak for a split chain's branches
        ChainLiveness.Silence s = l.silent(8 * S + 1);
        assertNotNull(s, "branch 2 never beat since the split was learnt at 2 s");
        assertEquals(BranchId.of(2), s.branch());
        assertFalse(s.heard());
    }

    @Test
    void aMergeMakesTheParentExpectedAgainAndStaleHeartbeatsChangeNothing() {
        ChainLiveness l = new ChainLiveness(BranchId.root(), 1, "s1", 6 * S, 0);
        l.heartbeat(beat(3, BranchId.of(1, 2), 2, 2), S); // nested split learnt at once
        assertEquals(Set.of(BranchId.of(1, 1), BranchId.of(1, 2), BranchId.of(2)), Set.copyOf(l.expected()));
        l.heartbeat(beat(1, BranchId.root()), S); // the splitting hop's, overtaken: stale
        assertEquals(3, l.expected().size());
        l.heartbeat(beat(4, BranchId.of(1), 2), 2 * S); // the inner merge
        assertEquals(Set.of(BranchId.of(1), BranchId.of(2)), Set.copyOf(l.expected()));
        l.heartbeat(beat(3, BranchId.of(1, 1), 2, 2), 2 * S); // a branch heartbeat sent before that merge: stale
        assertEquals(Set.of(BranchId.of(1), BranchId.of(2)), Set.copyOf(l.expected()));
        l.heartbeat(beat(5, BranchId.root()), 3 * S); // the outer merge
        assertEquals(List.of(BranchId.root()), l.expected());
        l.heartbeat(beat(5, BranchId.of(2), 2), 3 * S); // the merge host's last heartbeat for branch 2: stale
        assertEquals(List.of(BranchId.root()), l.expected());
        l.heartbeat(beat(7, BranchId.of(2), 2), 4 * S); // a new split after the merge
        assertEquals(Set.of(BranchId.of(1), BranchId.of(2)), Set.copyOf(l.expected()));
    }

    private static HeartbeatFrame owes(int hop, String host) {
        return new HeartbeatFrame(1, SECRET, hop, host, BranchId.root(), List.of(), true);
    }

    @Test
    void aHopThatRepliedIsWatchedUntilItsQuietAlsoAfterTheOutcome() {
        ChainLiveness l = new ChainLiveness(BranchId.root(), 1, "s1", 6 * S, 0);
        l.replied(BranchId.root(), 1, "s1", S);
        assertEquals(List.of("1@s1"), l.owing());
        l.heartbeat(owes(1, "s1"), 4 * S); // handed on, still replying
        l.heard(5 * S); // the result
        assertNull(l.silent(10 * S, true));
        ChainLiveness.Silence s = l.silent(10 * S + 1, true);
        assertNotNull(s, "silent for 6 s after its last heartbeat: broken although the result is in");
        assertTrue(s.owedReplies());
        assertEquals(1, s.hop());
        assertEquals("s1", s.host());
        l.quiet(BranchId.root(), 1, "s1", 10 * S);
        assertEquals(List.of(), l.owing());
        l.heartbeat(owes(1, "s1"), 11 * S); // overtaken by its QUIET on another path: stale
        assertEquals(List.of(), l.owing());
        assertNull(l.silent(16 * S, true));
    }

    @Test
    void anErrorNamingAHopEndsItsWatchOnEveryBranch() {
        ChainLiveness l = new ChainLiveness(BranchId.root(), 1, "s1", 6 * S, 0);
        l.replied(BranchId.of(1), 3, "s2", S);
        l.replied(BranchId.of(2), 3, "s2", S);
        l.replied(BranchId.of(2), 3, "s3", S);
        l.failed(3, "s2", 2 * S);
        assertEquals(List.of("3@s3"), l.owing());
        l.replied(BranchId.of(1), 3, "s2", 3 * S); // a late reply of a hop that failed
        assertEquals(List.of("3@s3"), l.owing());
    }

    @Test
    void afterTheOutcomeAChainWithCreditOutAndNothingHeardIsBroken() {
        ChainLiveness l = new ChainLiveness(BranchId.root(), 1, "s1", 6 * S, 0);
        l.heartbeat(beat(2, BranchId.root()), S);
        l.heard(2 * S); // the result; a hop that owed replies died before it was heard of
        assertNull(l.silent(8 * S, true));
        ChainLiveness.Silence s = l.silent(8 * S + 1, true);
        assertNotNull(s);
        assertTrue(s.owedReplies());
        assertFalse(s.heard());
        assertEquals("n2", s.host(), "names the hop last heard of");
    }

    @Test
    void repliesOfAHopThatHandedTheChainOnSayNothingOfTheHolder() {
        ChainLiveness l = new ChainLiveness(BranchId.root(), 1, "s1", 6 * S, 0);
        l.heartbeat(owes(1, "s1"), S); // hop 1 handed the chain on
        for (long t = 2; t <= 9; t++) {
            l.replied(BranchId.root(), 1, "s1", t * S);
            l.heartbeat(owes(1, "s1"), t * S);
        }
        ChainLiveness.Silence s = l.silent(9 * S, false);
        assertNotNull(s, "the holder (hop 2) is silent since the start although hop 1 replies");
        assertFalse(s.owedReplies());
        l.replied(BranchId.root(), 2, "s2", 9 * S); // a reply of the holder is a sign of its life
        assertNull(l.silent(10 * S, false));
    }

    @Test
    void aTimeoutSaysWhereTheChainWasLastHeardOf() {
        ChainLiveness l = new ChainLiveness(BranchId.root(), 1, "s1", 6 * S, 0);
        assertEquals("nothing of it arrived since it was sent to 's1' for hop 1, 2000 ms ago", l.lastHeardOf(2 * S));
        l.heartbeat(beat(2, BranchId.root()), 3 * S);
        assertEquals("the last of its frames arrived 1500 ms before the end; the last hop heard from: hop 2 on 'n2'",
                l.lastHeardOf(3 * S + 1500 * S / 1000));
    }
}
