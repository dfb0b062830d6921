package io.rpcc.server.internal;

import io.rpcc.core.ChainErrorCode;
import io.rpcc.core.ChainState;
import io.rpcc.core.HopTiming;
import io.rpcc.core.Metadata;
import io.rpcc.core.internal.chain.NextHopDecision;
import io.rpcc.core.internal.wire.ChainHeader;
import io.rpcc.core.internal.wire.ChainSoFar;
import io.rpcc.core.internal.wire.ChainRequest;
import io.rpcc.core.internal.wire.HopFailure;
import io.rpcc.core.internal.wire.ReturnPoint;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The handler of a sub-chain's result returning to the hop that started it ({@link HopKind#RETURN},
 * paper 3.4): a return that arrived resumes the hop parked here ({@link Continuations}), its
 * chaining function getting the result; a composed return (Fig. 5c) resumes, where the sub-chain
 * ended, the chaining function its return point carries, on the thread, credit and control of the
 * hop that ended it.
 */
final class SubChainReturn {
    /**
     * A composed return for {@code from}, the hop that ended a sub-chain, to run next on its thread.
     *
     * @param from the hop that ended the sub-chain
     * @param back the return, to a composed point
     * @param metadata the metadata the parent chain goes on with (as the interceptors made it)
     */
    record Composed(HopState from, NextHopDecision.ReturnToCreator back, Metadata metadata) {
    }

    private final String nodeName;
    private final Continuations continuations;
    private final AtomicLong arrived = new AtomicLong();

    /** The returns to node {@code nodeName}, whose parked hops {@code continuations} holds. */
    SubChainReturn(String nodeName, Continuations continuations) {
        this.nodeName = nodeName;
        this.continuations = continuations;
    }

    /** Sub-chain results that came back here to resume a chain parked here. */
    long arrived() {
        return arrived.get();
    }

    /**
     * Resumes the hop parked here that {@code hop}, the return of {@code request} (arrived at
     * {@code arrivedNanos}), returns to, or fails the chain with a typed error naming this node.
     */
    HopResult arrived(HopState hop, ChainRequest request, long arrivedNanos) {
        ChainHeader h = hop.header();
        Continuations.Parked parked = continuations.returnedTo(h, nodeName);
        if (parked == null) {
            throw new HopFailure(ChainErrorCode.SUB_CHAIN, "the sub-chain that ended at hop " + h.hop() + " returned to '"
                    + nodeName + "', which no longer holds the chain it started it from (continuation "
                    + h.returnStack().getLast().continuation() + "): a parked chain is kept for its deadline plus "
                    + TimeUnit.NANOSECONDS.toSeconds(ChainTrails.GRACE_NANOS) + " s, until it is cancelled, and "
                    + "while the server runs; give the chain a later deadline");
        }
        arrived.incrementAndGet();
        ChainHeader resumed = parked.resumed(h);
        return new HopResult(hop.resumedAs(resumed), parked.state(), request.params(), timing(resumed, arrivedNanos),
                null);
    }

    /**
     * The composed return of {@code request} (taken up at {@code startNanos} by {@code hop}, which
     * ended the sub-chain after running {@code endedAfter}): the chaining function and state of its
     * innermost return point, the point popped; the popped header keeps {@code endedAfter} as its
     * service function (never {@link HopKind#RETURN}, which would say the point is still to be
     * popped: {@link SubChainFailures} would then skip a creator).
     */
    HopResult composed(HopState hop, ChainRequest request, String endedAfter, long startNanos) {
        ChainHeader h = hop.header();
        ReturnPoint point = h.returnStack().getLast();
        ChainHeader resumed = h.onward(new ChainSoFar(h.hop(), h.path(), h.console(), h.timings(), h.metadata()), endedAfter, point.chainingFunction(), h.credit(), h.budgetNanos())
                .with(point.chainingFunction(), h.returnStack().subList(0, h.returnStack().size() - 1));
        ChainState state = point.state();
        if (point.node().node().equals(nodeName)) { // ended at its creator: a hop parked here for a
            continuations.forget(point.continuation()); // failure handler is not needed any more
        }
        return new HopResult(hop.resumedAs(resumed), state, request.params(), timing(resumed, startNanos), null);
    }

    private HopTiming timing(ChainHeader resumed, long arrivedNanos) {
        return new HopTiming(resumed.hop(), nodeName, HopKind.RETURN.wireName(), System.nanoTime() - arrivedNanos, 0,
                0, 0, nodeName);
    }
}
