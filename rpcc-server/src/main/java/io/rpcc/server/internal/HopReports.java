package io.rpcc.server.internal;

import io.rpcc.core.ChainFailure;
import io.rpcc.core.ConsoleLine;
import io.rpcc.core.FailureFields;
import io.rpcc.core.HopTiming;
import io.rpcc.core.internal.chain.FailureLog;
import io.rpcc.core.internal.chain.Node;
import io.rpcc.core.internal.wire.ChainErrorFrame;
import io.rpcc.core.internal.wire.ChainHeader;
import io.rpcc.core.internal.wire.ChainResultFrame;
import io.rpcc.core.internal.wire.Credit;
import io.rpcc.core.internal.wire.HopFailure;
import java.net.InetSocketAddress;
import java.util.List;
import java.util.concurrent.CompletableFuture;

/**
 * What the hops a server runs send to their chains' originators: a chain's result (from its last
 * hop) or a hop's failure, each with the credit the hop hands over, straight to the chain's reply-to
 * node. A failure is logged once here ({@link FailureLog}); one too large for a frame is sent again
 * without its console, details and diagnostics, then with only the start of its message.
 */
final class HopReports {
    private final Node node;
    private final FailureLog failures;

    /** The reports of the hops running at {@code node}, logging to {@code failures}. */
    HopReports(Node node, FailureLog failures) {
        this.node = node;
        this.failures = failures;
    }

    /**
     * Sends a chain's result, with {@code credit}, to its originator. Reports a failure (with the
     * same credit) instead if the result cannot be sent.
     */
    void sendResult(ChainHeader h, List<String> path, List<ConsoleLine> console, List<HopTiming> timings, Object value,
                    Credit credit) {
        ChainResultFrame frame = new ChainResultFrame(h.chainId(), h.secret(), path, console, timings, value, credit, null);
        toOrigin(h, frame).whenComplete((v, e) -> {
            if (e != null && Node.unwrap(e) instanceof HopFailure f && !f.code().unreachable()) {
                sendFailure(h, f, path, console, timings, credit);
            }
        });
    }

    /**
     * Reports a failure of the hop described by {@code h}, at this node, to the chain's originator,
     * returning {@code credit} with it; the future completes when the report is written or failed.
     */
    CompletableFuture<Void> sendFailure(ChainHeader h, HopFailure f, List<String> path, List<ConsoleLine> console,
                                        List<HopTiming> timings, Credit credit) {
        failures.hopFailed(h, f);
        String name = node.name();
        ChainFailure failure = new ChainFailure(f.exceptionName(), f.getMessage(), name, h.hop(), path, f.details(),
                console, timings, f.fields());
        return toOrigin(h, new ChainErrorFrame(h.chainId(), h.secret(), f.code(), failure, credit)).whenComplete((v, e) -> {
            if (e != null && Node.unwrap(e) instanceof HopFailure tooBig && !tooBig.code().unreachable()) {
                // The console, details or message made the error too large: send it without them,
                // and, if even that does not fit, with only its start and no path.
                FailureFields small = lean(f.fields());
                ChainFailure lean = new ChainFailure(truncate(f.exceptionName(), 512), truncate(f.getMessage(), 4096),
                        name, h.hop(), path, List.of(), List.of(), List.of(), small);
                toOrigin(h, new ChainErrorFrame(h.chainId(), h.secret(), f.code(), lean, credit)).whenComplete((v2, e2) -> {
                    if (e2 != null && Node.unwrap(e2) instanceof HopFailure again && !again.code().unreachable()) {
                        ChainFailure bare = new ChainFailure(truncate(f.exceptionName(), 128),
                                truncate(f.getMessage(), 256), name, h.hop(), List.of(), List.of(), List.of(), List.of(),
                                small);
                        toOrigin(h, new ChainErrorFrame(h.chainId(), h.secret(), f.code(), bare, credit));
                    }
                });
            }
        });
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
