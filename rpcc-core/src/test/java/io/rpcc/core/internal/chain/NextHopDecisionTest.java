package io.rpcc.core.internal.chain;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.rpcc.core.ChainErrorCode;
import io.rpcc.core.ChainState;
import io.rpcc.core.ChainingFunctionSource;
import io.rpcc.core.FunctionLanguage;
import io.rpcc.core.NextHop;
import io.rpcc.core.SubChain;
import io.rpcc.core.internal.wire.ChainHeader;
import io.rpcc.core.internal.wire.HopFailure;
import io.rpcc.core.internal.wire.NodeAddress;
import io.rpcc.core.internal.wire.ReturnPoint;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** The one interpretation of a next hop, shared by servers and interactive mode. */
class NextHopDecisionTest {
    static final long MS = TimeUnit.MILLISECONDS.toNanos(1);
    /** The return stack of a top-level chain: it ends at its originator. */
    static final List<ReturnPoint> TOP = List.of();
    final ChainingFunctionSource current = ChainingFunctionSource.of(FunctionLanguage.JAVA, "current");
    final ChainingFunctionSource other = ChainingFunctionSource.of(FunctionLanguage.JAVA, "other");
    final NextHopDecision decisions = new NextHopDecision(10, 5 * MS); // node limit 10 hops, 5 ms per crossing

    @Test
    void anEndFinishesTheChainWithItsResult() {
        NextHopDecision.Action a = decisions.decide(NextHop.end("done"), 3, 10, current, 100 * MS, TOP);
        assertEquals("done", assertInstanceOf(NextHopDecision.Finish.class, a).result());
        assertEquals(null, assertInstanceOf(NextHopDecision.Finish.class,
                decisions.decide(NextHop.end(null), 1, 10, current, 100 * MS, TOP)).result());
    }

    @Test
    void aCallForwardsTheChainAsTheNextHop() {
        ChainState state = ChainState.empty().with("k", 1);
        NextHop.Call call = NextHop.call("s2", "f", "params", other, state);
        NextHopDecision.Forward f = assertInstanceOf(NextHopDecision.Forward.class,
                decisions.decide(call, 3, 10, current, 100 * MS, TOP));
        assertSame(call, f.call());
        assertEquals("s2", f.server());
        assertEquals("f", f.serviceFunction());
        assertEquals("params", f.params());
        assertSame(state, f.state());
        assertEquals(other, f.chainingFunction());
        assertEquals(4, f.hop());
    }

    @Test
    void theSameChainingFunctionStaysAndNoneEndsAfterTheNextService() {
        NextHopDecision.Forward same = assertInstanceOf(NextHopDecision.Forward.class,
                decisions.decide(NextHop.call("s2", "f", 1, ChainState.empty()), 1, 10, current, 100 * MS, TOP));
        assertEquals(current, same.chainingFunction());
        NextHopDecision.Forward last = assertInstanceOf(NextHopDecision.Forward.class,
                decisions.decide(NextHop.callThenEnd("s2", "f", 1), 1, 10, current, 100 * MS, TOP));
        assertEquals(ChainingFunctionSource.NONE, last.chainingFunction());
    }

    @Test
    void theHopLimitIsTheSmallerOfTheChainsAndTheNodes() {
        NextHop call = NextHop.call("s9", "g", 1, ChainState.empty());
        assertInstanceOf(NextHopDecision.Forward.class, decisions.decide(call, 4, 5, current, 100 * MS, TOP));
        NextHopDecision.Fail byChain = assertInstanceOf(NextHopDecision.Fail.class,
                decisions.decide(call, 5, 5, current, 100 * MS, TOP));
        assertEquals(ChainErrorCode.HOP_LIMIT_EXCEEDED, byChain.code());
        assertEquals("chain reached its hop limit of 5 hops; not calling 'g' at 's9'", byChain.message());
        assertInstanceOf(NextHopDecision.Forward.class, decisions.decide(call, 9, 50, current, 100 * MS, TOP));
        NextHopDecision.Fail byNode = assertInstanceOf(NextHopDecision.Fail.class,
                decisions.decide(call, 10, 50, current, 100 * MS, TOP));
        assertEquals("chain reached its hop limit of 10 hops; not calling 'g' at 's9'", byNode.message());
        HopFailure failure = byNode.failure();
        assertEquals(ChainErrorCode.HOP_LIMIT_EXCEEDED, failure.code());
        assertEquals(byNode.message(), failure.getMessage());
        // an end is never over the limit: the chain stops here
        assertInstanceOf(NextHopDecision.Finish.class, decisions.decide(NextHop.end(1), 10, 10, current, 100 * MS, TOP));
    }

    @Test
    void theNextHopGetsWhatIsLeftLessOneCrossing() {
        NextHop call = NextHop.call("s2", "f", 1, ChainState.empty());
        assertEquals(95 * MS, forward(call, 100 * MS).budgetNanos());
        assertEquals(-5 * MS, forward(call, 0).budgetNanos(), "a spent budget goes on, spent: the next hop refuses");
        assertEquals(-8 * MS, forward(call, -3 * MS).budgetNanos());
        assertEquals(ChainHeader.NO_DEADLINE, forward(call, ChainHeader.NO_DEADLINE).budgetNanos(),
                "a chain without a deadline keeps none");
        assertEquals(Long.MIN_VALUE / 2, forward(call, Long.MIN_VALUE + 1).budgetNanos(), "no wrap-around");
    }

    @Test
    void aNullNextHopIsRefused() {
        assertThrows(NullPointerException.class, () -> decisions.decide(null, 1, 10, current, 100 * MS, TOP));
    }

    @Test
    void anEndInsideASubChainReturnsToTheInnermostCreator() {
        ReturnPoint outer = new ReturnPoint(new NodeAddress("a", "127.0.0.1", 1), 7, true);
        ReturnPoint inner = new ReturnPoint(new NodeAddress("b", "127.0.0.1", 2), 9, true);
        var back = assertInstanceOf(NextHopDecision.ReturnToCreator.class,
                decisions.decide(NextHop.end("r"), 4, 10, current, 100 * MS, List.of(outer, inner)));
        assertEquals(inner, back.to());
        assertEquals("r", back.result());
        assertEquals(95 * MS, back.budgetNanos(), "a return is a crossing: it costs the allowance");
    }

    @Test
    void aSplitResolvesSameForEachBranchAndTheMergeAndKeepsEveryBranchWithinTheLimits() {
        ChainingFunctionSource other = ChainingFunctionSource.java("class Other {}");
        NextHop.Split split = NextHop.split(List.of(NextHop.call("b", "f", 1, ChainState.empty()),
                NextHop.call("c", "g", 2, other, ChainState.empty()), NextHop.callThenEnd("d", "h", 3)))
                .mergeAt("m", ChainingFunctionSource.SAME, ChainState.of("k", 1));
        var start = assertInstanceOf(NextHopDecision.StartSplit.class, decisions.decide(split, 2, 10, current,
                100 * MS, TOP));
        assertEquals(List.of(current, other, ChainingFunctionSource.NONE), start.branchFunctions());
        assertEquals(current, start.mergeFunction(), "SAME merges with the function that split");
        assertEquals(3, start.hop(), "every branch's first hop is the next hop");
        assertEquals(95 * MS, start.budgetNanos());
        assertEquals(ChainingFunctionSource.NONE, assertInstanceOf(NextHopDecision.StartSplit.class,
                decisions.decide(NextHop.split(split.branches()), 2, 10, current, 100 * MS, TOP)).mergeFunction(),
                "no merge function: the default merge");
        assertEquals(ChainErrorCode.HOP_LIMIT_EXCEEDED, assertInstanceOf(NextHopDecision.Fail.class,
                decisions.decide(split, 10, 10, current, 100 * MS, TOP)).code());
        List<ReturnPoint> deep = Collections.nCopies(ReturnPoint.MAX_DEPTH,
                ReturnPoint.merge(new NodeAddress("m", "127.0.0.1", 2), 1, 2));
        assertEquals(ChainErrorCode.SUB_CHAIN, assertInstanceOf(NextHopDecision.Fail.class,
                decisions.decide(split, 2, 10, current, 100 * MS, deep)).code());
        ReturnPoint merge = ReturnPoint.merge(new NodeAddress("m", "127.0.0.1", 2), 1, 2);
        assertEquals(merge, assertInstanceOf(NextHopDecision.ReturnToCreator.class,
                decisions.decide(NextHop.end("r"), 4, 10, current, 100 * MS, List.of(merge))).to(),
                "a branch's end goes to its merge point");
        assertThrows(IllegalArgumentException.class, () -> NextHop.split(List.of()));
    }

    @Test
    void aSplitSharesTheHopsLeftAmongItsBranchesAndTheMergeGoesOnWithWhatTheyLeft() {
        NextHop.Split three = NextHop.split(List.of(NextHop.callThenEnd("b", "f", 1), NextHop.callThenEnd("c", "g", 2),
                NextHop.callThenEnd("d", "h", 3)));
        // after hop 2 of a chain limited to 10 hops (and this node to 10): 8 left, shared 3, 3, 2
        var start = assertInstanceOf(NextHopDecision.StartSplit.class, decisions.decide(three, 2, 10, current,
                100 * MS, TOP));
        assertEquals(List.of(5, 5, 4), start.branchMaxHops());
        // the chain's own limit above the node's: the node's is shared
        assertEquals(List.of(5, 5, 4), assertInstanceOf(NextHopDecision.StartSplit.class,
                decisions.decide(three, 2, 1000, current, 100 * MS, TOP)).branchMaxHops());
        // 2 hops left cannot be shared among 3 branches
        var refused = assertInstanceOf(NextHopDecision.Fail.class, decisions.decide(three, 8, 10, current, 100 * MS,
                TOP));
        assertEquals(ChainErrorCode.HOP_LIMIT_EXCEEDED, refused.code());
        assertTrue(refused.message().contains("2 left after hop 8 cannot be shared among 3 branches"),
                refused.message());
        assertEquals(List.of(7, 7, 7), NextHopDecision.branchLimits(6, 9, 3), "one hop each: just enough");
        assertEquals(List.of(7, 7, 6), NextHopDecision.branchLimits(4, 12, 3));
        assertEquals(List.of(Integer.MAX_VALUE), NextHopDecision.branchLimits(0, Integer.MAX_VALUE, 1));
        assertThrows(IllegalArgumentException.class, () -> NextHopDecision.branchLimits(8, 10, 3));
        // branches of shares 5, 5, 4 that ended at hops 4, 5, 3 left 1 + 0 + 1: the merge at hop 5 goes on to 7
        assertEquals(7, NextHopDecision.mergedLimit(5, 2));
        assertEquals(Integer.MAX_VALUE, NextHopDecision.mergedLimit(Integer.MAX_VALUE - 1, 5));
    }

    @Test
    void aServiceOutcomeStartsASubChainOrEndsOrRunsTheChainingFunction() {
        SubChain sub = SubChain.to("c", "lookup").params(1);
        var start = assertInstanceOf(NextHopDecision.StartSubChain.class,
                decisions.afterService(sub, 2, 10, current, 100 * MS, TOP));
        assertSame(sub, start.subChain());
        assertEquals(3, start.hop(), "the sub-chain's hops are hops of the chain");
        assertEquals(95 * MS, start.budgetNanos());
        assertEquals("x", assertInstanceOf(NextHopDecision.RunChainingFunction.class,
                decisions.afterService("x", 2, 10, current, 100 * MS, TOP)).result());
        assertEquals("x", assertInstanceOf(NextHopDecision.Finish.class,
                decisions.afterService("x", 2, 10, ChainingFunctionSource.NONE, 100 * MS, TOP)).result());
        ReturnPoint creator = new ReturnPoint(new NodeAddress("b", "127.0.0.1", 2), 9, true);
        assertEquals(creator, assertInstanceOf(NextHopDecision.ReturnToCreator.class,
                decisions.afterService("x", 2, 10, ChainingFunctionSource.NONE, 100 * MS, List.of(creator))).to());
    }

    @Test
    void aSubChainCountsAgainstTheHopLimitAndNestsAtMost64Deep() {
        SubChain sub = SubChain.to("c", "lookup");
        assertEquals(ChainErrorCode.HOP_LIMIT_EXCEEDED, assertInstanceOf(NextHopDecision.Fail.class,
                decisions.afterService(sub, 10, 50, current, 100 * MS, TOP)).code());
        List<ReturnPoint> deep = new ArrayList<>(Collections.nCopies(ReturnPoint.MAX_DEPTH - 1,
                new ReturnPoint(new NodeAddress("b", "127.0.0.1", 2), 9, true)));
        assertInstanceOf(NextHopDecision.StartSubChain.class, decisions.afterService(sub, 1, 10, current, 100 * MS, deep));
        deep.add(deep.getFirst());
        NextHopDecision.Fail tooDeep = assertInstanceOf(NextHopDecision.Fail.class,
                decisions.afterService(sub, 1, 10, current, 100 * MS, deep));
        assertEquals(ChainErrorCode.SUB_CHAIN, tooDeep.code());
        assertThrows(IllegalArgumentException.class, () -> sub.chainingFunction(ChainingFunctionSource.SAME));
    }

    private NextHopDecision.Forward forward(NextHop call, long remaining) {
        return assertInstanceOf(NextHopDecision.Forward.class, decisions.decide(call, 1, 10, current, remaining, TOP));
    }
}
