package io.rpcc.client.internal;

import io.rpcc.core.ChainException;
import io.rpcc.core.ChainFailure;
import io.rpcc.core.ChainResult;
import io.rpcc.core.ChainState;
import io.rpcc.core.ChainingFunctionSource;
import io.rpcc.core.ConsoleLine;
import io.rpcc.core.HopTiming;
import io.rpcc.core.internal.chain.ChainOriginator;
import io.rpcc.core.internal.chain.Node;
import io.rpcc.core.internal.wire.ChainHeader;
import io.rpcc.core.internal.wire.ChainRequest;
import io.rpcc.core.internal.wire.ChainResultFrame;
import io.rpcc.core.internal.wire.ErrorCode;
import io.rpcc.core.internal.wire.HopFailure;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;

/**
 * Starts chains at the originator (paper Fig. 3, steps 1 and 2) and turns what comes back into a
 * {@link ChainResult} or a {@link ChainException}.
 */
public final class ChainLauncher {
    private final Node node;

    /** A launcher for chains started by {@code node}. */
    public ChainLauncher(Node node) {
        this.node = node;
    }

    /** The node. */
    public Node node() {
        return node;
    }

    /**
     * Starts a chain in chain mode: the whole chain runs at the servers and the result comes
     * straight from the last one. The future completes on an event loop: attach no user code.
     */
    public CompletableFuture<ChainResult> start(String server, String serviceFunction, Object params,
                                               ChainingFunctionSource cf, ChainState state, Duration timeout,
                                               int maxHops) {
        return sendHop(server, serviceFunction, params, cf, state, timeout, 1, maxHops, List.of())
                .thenApply(arrival -> toResult(arrival.frame(), arrival.arrivedNanos() - arrival.startNanos(), false));
    }

    /**
     * A hop request sent by this node, and when its outcome arrived.
     *
     * @param frame the RESULT frame
     * @param startNanos when the request was started
     * @param arrivedNanos when the result arrived
     */
    public record HopOutcome(ChainResultFrame frame, long startNanos, long arrivedNanos) {
    }

    /** Sends one hop request (hop {@code hop}, after {@code path}) and waits for the chain's outcome. */
    CompletableFuture<HopOutcome> sendHop(String server, String serviceFunction, Object params,
                                          ChainingFunctionSource cf, ChainState state, Duration timeout, int hop,
                                          int maxHops, List<String> path) {
        ChainOriginator originator = node.originator();
        ChainOriginator.Pending p = originator.start(timeout);
        ChainHeader header = new ChainHeader(p.id(), node.name(), node.transport().advertisedHost(),
                node.transport().port(), hop, maxHops, path, List.of(), List.of(), serviceFunction, cf);
        node.forward(server, new ChainRequest(header, params, state, null)).whenComplete((v, e) -> {
            if (e != null) {
                Throwable cause = Node.unwrap(e);
                originator.failLocally(p.id(), cause instanceof HopFailure f ? f
                        : new HopFailure(ErrorCode.HOP_UNREACHABLE, "cannot reach '" + server + "': " + cause, cause));
            }
        });
        return p.outcome().thenApply(a -> new HopOutcome(a.frame(), p.startNanos(), a.arrivedNanos()));
    }

    /** The result in {@code frame}; throws if its value could not be decoded. */
    ChainResult toResult(ChainResultFrame frame, long elapsedNanos, boolean interactive) {
        if (frame.decodeError() != null) {
            throw failure(frame.decodeError(), frame.path().isEmpty() ? "" : frame.path().getLast(), frame.path().size(),
                    frame.path(), frame.console(), frame.timings());
        }
        return new ChainResult(frame.value(), node.name(), frame.path(), frame.console(), frame.timings(),
                Duration.ofNanos(elapsedNanos), interactive);
    }

    /** The public exception for {@code f}, which happened at {@code host} on hop {@code hop}. */
    static ChainException failure(HopFailure f, String host, int hop, List<String> path, List<ConsoleLine> console,
                                  List<HopTiming> timings) {
        return f.code().toException(new ChainFailure(f.exceptionName(), f.getMessage(), host, hop, path, f.details(),
                console, timings));
    }
}
