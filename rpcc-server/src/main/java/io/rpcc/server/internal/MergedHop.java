package io.rpcc.server.internal;

import io.rpcc.core.internal.wire.ChainRequest;

/**
 * The handler of a merge ({@link HopKind#MERGED}, paper 3.10): every branch of a split merging here
 * has ended, and the merge runs as a hop of its own, the split's merge function getting the
 * branches' outcomes ({@link MergePoints}); never on the wire.
 */
final class MergedHop {
    /** Takes up {@code hop}, the merge of {@code request}, for its merge function to run. */
    HopResult run(HopState hop, ChainRequest request) {
        return new HopResult(hop, request.state(), request.params(), hop.timings().removeLast(), null);
    }
}
