package io.rpcc.core.internal.chain;

import io.rpcc.core.ChainErrorCode;
import io.rpcc.core.ChainFailure;
import io.rpcc.core.internal.wire.CancelFrame;
import io.rpcc.core.internal.wire.ChainErrorFrame;
import io.rpcc.core.internal.wire.ChainHeader;
import io.rpcc.core.internal.wire.ChainRequest;
import io.rpcc.core.internal.wire.HopFailure;
import io.rpcc.core.internal.wire.WindowUpdateFrame;
import java.net.InetSocketAddress;
import java.util.List;
import java.util.concurrent.CompletableFuture;

/**
 * The server side of a node that hosts no service functions (a client): every hop sent to it fails
 * at once with {@link ChainErrorCode#UNKNOWN_SERVICE_FUNCTION} (or the node's own reason to refuse it, see
 * {@link #refuse}), reported to the chain's originator with the hop's credit and logged once
 * ({@link FailureLog}).
 */
final class RefusingRequestHandler implements RequestHandler {
    /** The longest message of a refusal sent without the chain's console. */
    private static final int MAX_MESSAGE_CHARS = 4096;

    private final Node node;
    private final FailureLog failures;

    /** Refuses the hops sent to {@code node}. */
    RefusingRequestHandler(Node node) {
        this.node = node;
        this.failures = new FailureLog(node.name());
    }

    @Override
    public void onRequest(ChainRequest request, long arrivedNanos) {
        ChainHeader h = request.header();
        RequestAdmission.dropStream(request, "node '" + node.name() + "' is a client and runs no hops");
        node.executor().execute(() -> refuse(h, new HopFailure(ChainErrorCode.UNKNOWN_SERVICE_FUNCTION, "node '"
                + node.name() + "' is a client and hosts no service functions (asked for '" + h.serviceFunction() + "')")));
    }

    /**
     * Sends the failure with the console and timings the chain brought; if that makes it too large
     * for a frame, without them.
     */
    @Override
    public void refuse(ChainHeader h, HopFailure why) {
        failures.hopFailed(h, why);
        List<String> path = node.pathThrough(h);
        send(h, why, new ChainFailure(why.exceptionName(), why.getMessage(), node.name(), h.hop(), path, List.of(),
                h.console(), h.timings())).whenComplete((v, e) -> {
                    if (e != null && Node.unwrap(e) instanceof HopFailure tooBig && !tooBig.unreachable()) {
                        String message = why.getMessage();
                        send(h, why, new ChainFailure(why.exceptionName(), message.length() <= MAX_MESSAGE_CHARS ? message
                                : message.substring(0, MAX_MESSAGE_CHARS) + "... (truncated)", node.name(), h.hop(),
                                path, List.of(), List.of(), List.of()));
                    }
                });
    }

    private CompletableFuture<Void> send(ChainHeader h, HopFailure why, ChainFailure failure) {
        InetSocketAddress replyTo = node.replyAddress(h);
        return node.transport().send(h.replyTo().node(), replyTo,
                new ChainErrorFrame(h.chainId(), h.attemptSecret(), why.code(), failure, h.credit())).whenComplete((v, e) -> {
                    if (e != null && Node.unwrap(e) instanceof HopFailure f && f.unreachable()) {
                        failures.replyToUnreachable(h, replyTo, f);
                    }
                });
    }

    @Override
    public boolean grant(WindowUpdateFrame grant) {
        return false; // no hop runs here, so no reply stream is open
    }

    @Override
    public boolean cancel(CancelFrame cancel) {
        return true; // no hop runs here and no chain was sent on from here: nothing to stop
    }

    @Override
    public int hopsInFlight() {
        return 0;
    }

    @Override
    public CompletableFuture<Void> abandonHops() {
        return CompletableFuture.completedFuture(null);
    }
}
