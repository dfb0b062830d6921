package io.rpcc.server.internal;

import io.rpcc.core.ChainFailure;
import io.rpcc.core.ConsoleLine;
import io.rpcc.core.FailureFields;
import io.rpcc.core.HopTiming;
import io.rpcc.core.internal.chain.FailureLog;
import io.rpcc.core.internal.chain.Node;
import io.rpcc.core.internal.wire.ChainErrorFrame;
import io.rpcc.core.internal.wire.ChainHeader;
import io.rpcc.core.internal.wire.ChainRequest;
import io.rpcc.core.internal.wire.ChainResultFrame;
import io.rpcc.core.internal.wire.Credit;
import io.rpcc.core.internal.wire.ErrorCode;
import io.rpcc.core.internal.wire.HopFailure;
import io.rpcc.core.internal.wire.NodeAddress;
import java.net.InetSocketAddress;
import java.util.List;
import java.util.concurrent.CompletableFuture;

/**
 * What the hops a server runs send to their chains' originators: a chain's result (from its last
 * hop) or a hop's failure, each with the credit the hop hands over, straight to the chain's reply-to
 * node (a failure on a branch of a split goes to the split's merge host instead: {@link MergePoints}). A failure is logged once here ({@link FailureLog}); one too large for a frame is sent again
 * without its console, details and diagnostics, then with only the start of its message. Each report
 * counts in the server's {@link HandOffs} until it is written or has failed.
 */
final class HopReports {
    private final Node node;
    private final FailureLog failures;
    private final HandOffs handOffs;

    /** The reports of the hops running at {@code node}, logging to {@code failures}, counted in {@code handOffs}. */
    HopReports(Node node, FailureLog failures, HandOffs handOffs) {
        this.node = node;
        this.failures = failures;
        this.handOffs = handOffs;
    }

    /**
     * Sends a chain's result, with {@code credit}, to its originator. Reports a failure (with the
     * same credit) instead if the result cannot be sent.
     */
    void sendResult(ChainHeader h, List<String> path, List<ConsoleLine> console, List<HopTiming> timings, Object value,
                    Credit credit) {
        ChainResultFrame frame = new ChainResultFrame(h.chainId(), h.secret(), path, console, timings, value, credit, null);
        handOffs.track(toOrigin(h, frame).exceptionallyCompose(e -> refusedHere(e)
                ? sendFailure(h, (HopFailure) Node.unwrap(e), path, console, timings, credit)
                : CompletableFuture.failedFuture(e)));
    }

    /**
     * Reports a failure of the hop described by {@code h}, at this node, to the chain's originator,
     * returning {@code credit} with it; the future completes when the report (or the smaller one
     * sent instead of a report too large for a frame) is written or failed.
     */
    CompletableFuture<Void> sendFailure(ChainHeader h, HopFailure f, List<String> path, List<ConsoleLine> console,
                                        List<HopTiming> timings, Credit credit) {
        failures.hopFailed(h, f);
        String name = node.name();
        ChainFailure failure = new ChainFailure(f.exceptionName(), f.getMessage(), name, h.hop(), path, f.details(),
                console, timings, f.fields());
        ChainRequest toMerge = MergePoints.failedOutcome(h, f.code(), failure, credit);
        if (toMerge != null) { // a branch of a split failed: its failure is its outcome, for the merge host
            return handOffs.track(toMerge(toMerge, h, f.code(), failure, credit));
        }
        return handOffs.track(toOrigin(h, new ChainErrorFrame(h.chainId(), h.secret(), f.code(), failure, credit))
                .exceptionallyCompose(e -> {
                    if (!refusedHere(e)) {
                        return CompletableFuture.failedFuture(e);
                    }
                    // The console, details or message made the error too large: send it without them,
                    // and, if even that does not fit, with only its start and no path.
                    FailureFields small = lean(f.fields());
                    ChainFailure lean = new ChainFailure(truncate(f.exceptionName(), 512), truncate(f.getMessage(), 4096),
                            name, h.hop(), path, List.of(), List.of(), List.of(), small);
                    ChainFailure bare = new ChainFailure(truncate(f.exceptionName(), 128), truncate(f.getMessage(), 256),
                            name, h.hop(), List.of(), List.of(), List.of(), List.of(), small);
                    return toOrigin(h, new ChainErrorFrame(h.chainId(), h.secret(), f.code(), lean, credit))
                            .exceptionallyCompose(e2 -> refusedHere(e2)
                                    ? toOrigin(h, new ChainErrorFrame(h.chainId(), h.secret(), f.code(), bare, credit))
                                    : CompletableFuture.failedFuture(e2));
                }));
    }

    /**
     * Reports {@code failure}, of kind {@code code}, that ended a branch elsewhere and that a default
     * merge passes on for the chain of {@code h} (the parent branch), with {@code credit}: to the
     * merge host of the split {@code h} is in, else to the originator.
     */
    CompletableFuture<Void> sendBranchFailure(ChainHeader h, ErrorCode code, ChainFailure failure, Credit credit) {
        ChainRequest toMerge = MergePoints.failedOutcome(h, code, failure, credit);
        return handOffs.track(toMerge != null ? toMerge(toMerge, h, code, failure, credit)
                : toOrigin(h, new ChainErrorFrame(h.chainId(), h.secret(), code, failure, credit)));
    }

    /** Sends the failed outcome {@code r} to its merge host; if it cannot, the failure to the originator. */
    private CompletableFuture<Void> toMerge(ChainRequest r, ChainHeader h, ErrorCode code, ChainFailure failure,
                                            Credit credit) {
        NodeAddress to = MergePoints.mergePoint(r).node();
        return node.transport().send(to.node(), node.addressOf(to), r).exceptionallyCompose(e ->
                toOrigin(h, new ChainErrorFrame(h.chainId(), h.secret(), code, failure, credit)));
    }

    /** Whether sending failed here (the frame could not be made: too large, not serializable), not on the way. */
    private static boolean refusedHere(Throwable e) {
        return Node.unwrap(e) instanceof HopFailure f && !f.code().unreachable();
    }

    /** {@code fields} without the diagnostics and with a bounded type name: small enough for any frame. */
    private static FailureFields lean(FailureFields fields) {
        return new FailureFields(fields.transientCondition(), truncate(fields.sandboxRule(), 128),
                truncate(fields.typeName(), 512), fields.typeId(), List.of());
    }

    /** {@code s} cut to at most {@code max} characters, marked as cut. */
    private static String truncate(String s, int max) {
        return s == null || s.length() <= max ? s : s.substring(0, max - 20) + "... (truncated)";
    }

    private CompletableFuture<Void> toOrigin(ChainHeader h, Object frame) {
        InetSocketAddress replyTo = node.replyAddress(h);
        return node.transport().send(h.replyTo().node(), replyTo, frame)
                .whenComplete((v, e) -> {
                    if (e != null && Node.unwrap(e) instanceof HopFailure f && f.code().unreachable()) {
                        failures.replyToUnreachable(h, replyTo, f);
                    }
                });
    }
}
