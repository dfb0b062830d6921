package io.rpcc.core.internal.chain;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.rpcc.core.ChainState;
import io.rpcc.core.ChainingFunctionSource;
import io.rpcc.core.FunctionLanguage;
import io.rpcc.core.NextHop;
import io.rpcc.core.internal.wire.ChainHeader;
import io.rpcc.core.internal.wire.ErrorCode;
import io.rpcc.core.internal.wire.HopFailure;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** The one interpretation of a next hop, shared by servers and interactive mode. */
class NextHopDecisionTest {
    static final long MS = TimeUnit.MILLISECONDS.toNanos(1);
    final ChainingFunctionSource current = ChainingFunctionSource.of(FunctionLanguage.JAVA, "current");
    final ChainingFunctionSource other = ChainingFunctionSource.of(FunctionLanguage.JAVA, "other");
    final NextHopDecision decisions = new NextHopDecision(10, 5 * MS); // node limit 10 hops, 5 ms per crossing

    @Test
    void anEndFinishesTheChainWithItsResult() {
        NextHopDecision.Action a = decisions.decide(NextHop.end("done"), 3, 10, current, 100 * MS);
        assertEquals("done", assertInstanceOf(NextHopDecision.Finish.class, a).result());
        assertEquals(null, assertInstanceOf(NextHopDecision.Finish.class,
                decisions.decide(NextHop.end(null), 1, 10, current, 100 * MS)).result());
    }

    @Test
    void aCallForwardsTheChainAsTheNextHop() {
        ChainState state = ChainState.empty().with("k", 1);
        NextHop.Call call = NextHop.call("s2", "f", "params", other, state);
        NextHopDecision.Forward f = assertInstanceOf(NextHopDecision.Forward.class,
                decisions.decide(call, 3, 10, current, 100 * MS));
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
                decisions.decide(NextHop.call("s2", "f", 1, ChainState.empty()), 1, 10, current, 100 * MS));
        assertEquals(current, same.chainingFunction());
        NextHopDecision.Forward last = assertInstanceOf(NextHopDecision.Forward.class,
                decisions.decide(NextHop.callThenEnd("s2", "f", 1), 1, 10, current, 100 * MS));
        assertEquals(ChainingFunctionSource.NONE, last.chainingFunction());
    }

    @Test
    void theHopLimitIsTheSmallerOfTheChainsAndTheNodes() {
        NextHop call = NextHop.call("s9", "g", 1, ChainState.empty());
        assertInstanceOf(NextHopDecision.Forward.class, decisions.decide(call, 4, 5, current, 100 * MS));
        NextHopDecision.Fail byChain = assertInstanceOf(NextHopDecision.Fail.class,
                decisions.decide(call, 5, 5, current, 100 * MS));
        assertEquals(ErrorCode.HOP_LIMIT_EXCEEDED, byChain.code());
        assertEquals("chain reached its hop limit of 5 hops; not calling 'g' at 's9'", byChain.message());
        assertInstanceOf(NextHopDecision.Forward.class, decisions.decide(call, 9, 50, current, 100 * MS));
        NextHopDecision.Fail byNode = assertInstanceOf(NextHopDecision.Fail.class,
                decisions.decide(call, 10, 50, current, 100 * MS));
        assertEquals("chain reached its hop limit of 10 hops; not calling 'g' at 's9'", byNode.message());
        HopFailure failure = byNode.failure();
        assertEquals(ErrorCode.HOP_LIMIT_EXCEEDED, failure.code());
        assertEquals(byNode.message(), failure.getMessage());
        // an end is never over the limit: the chain stops here
        assertInstanceOf(NextHopDecision.Finish.class, decisions.decide(NextHop.end(1), 10, 10, current, 100 * MS));
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
        assertThrows(NullPointerException.class, () -> decisions.decide(null, 1, 10, current, 100 * MS));
    }

    private NextHopDecision.Forward forward(NextHop call, long remaining) {
        return assertInstanceOf(NextHopDecision.Forward.class, decisions.decide(call, 1, 10, current, remaining));
    }
}
