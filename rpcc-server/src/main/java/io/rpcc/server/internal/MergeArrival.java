package io.rpcc.server.internal;

import io.rpcc.core.internal.chain.HopControl;
import io.rpcc.core.internal.wire.ChainRequest;
import io.rpcc.core.internal.wire.Credit;
import java.util.function.Consumer;

/**
 * The handler of a split's opening and of a branch's outcome or failure ({@link HopKind#SPLIT_OPENING},
 * {@link HopKind#BRANCH_OUTCOME}, {@link HopKind#BRANCH_FAILURE}), at the split's merge host (paper
 * 3.10): its credit goes to the split that {@link MergePoints} holds (the request's hop ends here);
 * when the split is complete, the merge starts as a hop of its own ({@link HopKind#MERGED}), or,
 * with the default merge and a failed branch, the chain fails with that branch's failure.
 */
final class MergeArrival {
    private final MergePoints merges;
    private final HopReports reports;
    private final Consumer<ChainRequest> startMerge;

    /**
     * Arrivals at the splits in {@code merges}; {@code startMerge} starts the merge of a complete
     * split, as a hop of its own on the node's executor.
     */
    MergeArrival(MergePoints merges, HopReports reports, Consumer<ChainRequest> startMerge) {
        this.merges = merges;
        this.reports = reports;
        this.startMerge = startMerge;
    }

    /** {@code request}, the request of {@code hop}, arrived here. */
    void arrived(HopState hop, ChainRequest request) {
        Credit credit = hop.replies().handOver(request.header().credit());
        if (!hop.control().isCancelled() && !hop.replies().abandoned()) {
            arrived(request, credit, hop.control());
        }
    }

    /**
     * {@code request} arrived here with {@code credit}, for the hop that {@code control} controls
     * (the request's own, or, for the opening of a split made here, the splitting hop's).
     */
    void arrived(ChainRequest request, Credit credit, HopControl control) {
        switch (merges.arrive(request, credit, System.nanoTime())) {
            case MergePoints.Waiting waiting -> { }
            case MergePoints.Ready ready -> startMerge.accept(ready.request());
            case MergePoints.FirstFailure f -> {
                if (!control.isCancelled()) {
                    reports.passOn(f.header(), f.failure(), f.header().credit());
                }
            }
        }
    }
}
