package io.rpcc.server.internal;

import io.rpcc.core.HopTiming;
import io.rpcc.core.internal.wire.ChainHeader;
import io.rpcc.core.internal.wire.LocatedFailure;

/**
 * The handler of a sub-chain's failure returning to the hop that started it
 * ({@link HopKind#RETURN_FAILURE}, paper 3.8): the sub-chain's failure handler, kept with the parked
 * hop, recovers (the parked hop's chaining function runs with the recovery) or the failure is passed
 * on, to the next creator out or the originator ({@link SubChainFailures}).
 */
final class SubChainFailureReturn {
    private final String nodeName;
    private final Continuations continuations;
    private final HopReports reports;

    /** The failures returning to node {@code nodeName}, whose parked hops {@code continuations} holds. */
    SubChainFailureReturn(String nodeName, Continuations continuations, HopReports reports) {
        this.nodeName = nodeName;
        this.continuations = continuations;
        this.reports = reports;
    }

    /**
     * What becomes of {@code failed}, the failure that {@code hop} carries here (decoded from its
     * request where it started to run), taken up at {@code arrivedNanos}: the recovered hop, or
     * {@code null} if the failure was passed on.
     */
    HopResult run(HopState hop, LocatedFailure failed, long arrivedNanos) {
        ChainHeader h = hop.header();
        Continuations.Parked parked = continuations.returnedTo(h, nodeName);
        SubChainFailures.Decision decision;
        try (var scope = hop.context(nodeName, "failure-handler").push()) {
            decision = SubChainFailures.decide(parked, failed, nodeName, h.returnStack().getLast());
        }
        if (decision instanceof SubChainFailures.PassOn on) {
            reports.passOn(hop, parked == null ? h : parked.resumed(h), on.failure(),
                    hop.replies().handOver(h.credit()));
            return null;
        }
        ChainHeader resumed = parked.resumed(h);
        HopTiming timing = new HopTiming(resumed.hop(), nodeName, HopKind.RETURN_FAILURE.wireName(),
                System.nanoTime() - arrivedNanos, 0, 0, 0, nodeName);
        return new HopResult(hop.resumedAs(resumed), parked.state(), ((SubChainFailures.Recover) decision).result(),
                timing, null);
    }
}
