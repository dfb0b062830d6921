package io.rpcc.server.internal;

import io.rpcc.core.ChainErrorCode;
import io.rpcc.core.ChainFailure;
import io.rpcc.core.ConsoleLine;
import io.rpcc.core.FailureFields;
import io.rpcc.core.HopTiming;
import io.rpcc.core.internal.chain.FailureLog;
import io.rpcc.core.internal.chain.Node;
import io.rpcc.core.internal.wire.ChainErrorFrame;
import io.rpcc.core.internal.wire.ChainHeader;
import io.rpcc.core.internal.wire.ChainKey;
import io.rpcc.core.internal.wire.ChainRequest;
import io.rpcc.core.internal.wire.ChainResultFrame;
import io.rpcc.core.internal.wire.Credit;
import io.rpcc.core.internal.wire.HopFailure;
import io.rpcc.core.internal.wire.LocatedFailure;
import io.rpcc.core.internal.wire.NodeAddress;
import io.rpcc.core.internal.wire.ReturnPoint;
import io.rpcc.server.HopOutcome;
import java.net.InetSocketAddress;
import java.util.List;
import java.util.concurrent.CompletableFuture;

/**
 * What the hops a server runs send to their chains' originators: a chain's result (from its last
 * hop) or a hop's failure, each with the credit the hop hands over, straight to the chain's reply-to
 * node; a failure inside a sub-chain goes to the sub-chain's creator first ({@link SubChainFailures}),
 * one on a branch of a split to the split's merge host, as the branch's failed outcome
 * ({@link MergePoints}). A failure is logged once here ({@link FailureLog}); one too large for a frame is sent again
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
     * Sends the chain's result {@code value}, from {@code hop}, which ended it, with {@code credit},
     * to its originator. Reports a failure of the hop (with the same credit) instead if the result
     * cannot be sent. The hop's watch learns which, and waits for the frame.
     */
    void sendResult(HopState hop, Object value, Credit credit) {
        ChainHeader h = hop.header();
        List<ConsoleLine> console = hop.consoleNow();
        ChainResultFrame frame = new ChainResultFrame(new ChainKey(h.chainId(), h.attemptSecret()), hop.path(), console,
                hop.timings(), value, credit, null);
        hop.watch().went(new HopOutcome.Finished(value));
        hop.watch().track(handOffs.track(toOrigin(h, frame, hop.replies()).exceptionallyCompose(e -> refusedHere(e)
                ? hopFailed(hop, h, (HopFailure) Node.unwrap(e), console, hop.timings(), credit)
                : CompletableFuture.failedFuture(e))));
    }

    /**
     * Reports, as {@link #sendFailure} does, that {@code hop} failed with {@code f}, under header
     * {@code h} (the hop's, or the one its failed request carried), with {@code console} and
     * {@code timings}; tells the hop's watch, which waits for the report.
     */
    CompletableFuture<Void> hopFailed(HopState hop, ChainHeader h, HopFailure f, List<ConsoleLine> console,
                                      List<HopTiming> timings, Credit credit) {
        failures.hopFailed(h, f);
        return passOn(hop, h, f.located(node.name(), h.hop(), hop.path(), console, timings), credit);
    }

    /** Passes {@code failure} on as {@link #passOn(ChainHeader, LocatedFailure, Credit)} does, as {@code hop}'s; tells its watch. */
    CompletableFuture<Void> passOn(HopState hop, ChainHeader h, LocatedFailure failure, Credit credit) {
        hop.watch().failed(failure);
        return hop.watch().track(passOn(h, failure, credit));
    }

    /**
     * Reports a failure of the hop described by {@code h}, at this node, returning {@code credit}
     * with it: to the node that created the sub-chain the hop is in, if any (paper 3.8), else to the
     * chain's originator; the future completes when the report (or the smaller one sent instead of a
     * report too large for a frame) is written or failed.
     */
    CompletableFuture<Void> sendFailure(ChainHeader h, HopFailure f, List<String> path, List<ConsoleLine> console,
                                        List<HopTiming> timings, Credit credit) {
        failures.hopFailed(h, f);
        return passOn(h, f.located(node.name(), h.hop(), path, console, timings), credit);
    }

    /**
     * Reports {@code failure}, which happened where it says (at this node, inside a sub-chain or on a
     * branch), of the chain of {@code h}, with {@code credit}, to the innermost level {@code h} is in
     * ({@link SubChainFailures#levelsOut}): the creator of its sub-chain (paper 3.8), or the merge host
     * of its split, as the branch's failed outcome (paper 3.10); at the top level (or if that node
     * cannot be reached, or the chain was cancelled), to the chain's originator.
     */
    CompletableFuture<Void> passOn(ChainHeader h, LocatedFailure failure, Credit credit) {
        List<ReturnPoint> levels = failure.code() == ChainErrorCode.CANCELLED ? List.of()
                : SubChainFailures.levelsOut(h);
        if (levels.isEmpty()) {
            return toOriginator(h, failure, credit);
        }
        ReturnPoint to = levels.getLast();
        ChainRequest report = to.isMerge() ? MergePoints.failedOutcome(h, levels, failure, credit)
                : SubChainFailures.toCreator(h, levels, failure, credit, node.allowanceNanos());
        if (report == null) {
            return toOriginator(h, failure, credit);
        }
        return handOffs.track(node.transport().send(to.node().node(), node.addressOf(to.node()), report)
                .exceptionallyCompose(e -> {
                    SubChainFailures.levelUnreachable(h, to, Node.unwrap(e));
                    return toOriginator(h, failure, credit);
                }));
    }

    /** Sends {@code failure} in an ERROR frame to the chain's reply-to node, smaller if it is too large. */
    private CompletableFuture<Void> toOriginator(ChainHeader h, LocatedFailure failure, Credit credit) {
        ChainErrorCode code = failure.code();
        ChainFailure f = failure.failure();
        return handOffs.track(toOrigin(h, new ChainErrorFrame(h.chainId(), h.attemptSecret(), code, f, credit))
                .exceptionallyCompose(e -> {
                    if (!refusedHere(e)) {
                        return CompletableFuture.failedFuture(e);
                    }
                    // The console, details or message made the error too large: send it without them,
                    // and, if even that does not fit, with only its start and no path.
                    FailureFields small = lean(f.fields());
                    ChainFailure lean = new ChainFailure(truncate(f.exceptionName(), 512), truncate(f.message(), 4096),
                            f.host(), f.hop(), f.path(), List.of(), List.of(), List.of(), small);
                    ChainFailure bare = new ChainFailure(truncate(f.exceptionName(), 128), truncate(f.message(), 256),
                            f.host(), f.hop(), List.of(), List.of(), List.of(), List.of(), small);
                    return toOrigin(h, new ChainErrorFrame(h.chainId(), h.attemptSecret(), code, lean, credit))
                            .exceptionallyCompose(e2 -> refusedHere(e2)
                                    ? toOrigin(h, new ChainErrorFrame(h.chainId(), h.attemptSecret(), code, bare, credit))
                                    : CompletableFuture.failedFuture(e2));
                }));
    }

    /** Whether sending failed here (the frame could not be made: too large, not serializable), not on the way. */
    private static boolean refusedHere(Throwable e) {
        return Node.unwrap(e) instanceof HopFailure f && !f.unreachable();
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

    /**
     * Sends {@code frame} to the chain's originator: its reply-to, unless {@code h} is inside a
     * sub-chain whose reply-to is its creator (a failure the creator could not be told of).
     */
    private CompletableFuture<Void> toOrigin(ChainHeader h, Object frame) {
        return toOrigin(h, frame, null);
    }

    /**
     * {@link #toOrigin(ChainHeader, Object)}; an atomic hop's VOTE that {@code replies} (if not
     * {@code null}) holds for the same node goes first, written with {@code frame} at once (one
     * wake-up of the connection's event loop, one write), so that the two arrive together.
     */
    private CompletableFuture<Void> toOrigin(ChainHeader h, Object frame, HopReplies replies) {
        NodeAddress to = h.returnStack().isEmpty() ? h.replyTo() : h.originator();
        InetSocketAddress replyTo = node.addressOf(to);
        HopReplies.HeldVote vote = replies == null ? null : replies.takeHeldVote();
        CompletableFuture<Void> sent;
        if (vote == null) {
            sent = node.transport().send(to.node(), replyTo, frame);
        } else if (vote.peer().equals(to.node()) && vote.address().equals(replyTo)) {
            sent = node.transport().sendTogether(to.node(), replyTo, vote.frame(), frame,
                    e -> AtomicHops.voteUnsent(node, vote, e));
        } else {
            AtomicHops.sendVote(node, vote);
            sent = node.transport().send(to.node(), replyTo, frame);
        }
        return sent
                .whenComplete((v, e) -> {
                    if (e != null && Node.unwrap(e) instanceof HopFailure f && f.unreachable()) {
                        failures.replyToUnreachable(h, replyTo, f);
                    }
                });
    }
}
