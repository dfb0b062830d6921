package io.rpcc.server;

import io.rpcc.core.ChainContext;
import io.rpcc.core.HopRejectedException;
import io.rpcc.core.HopTiming;
import io.rpcc.core.UnstableApi;
import java.net.InetSocketAddress;
import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * Code around every hop a server runs, told exactly once how the hop ended: for metrics, tracing,
 * logging, audit. The server's counterpart of the client's {@code ChainDecorator}; modelled on
 * Armeria's decorators and gRPC's {@code ServerCall.Listener} ({@code onComplete}, {@code onCancel}).
 * Registered with {@code RpccServer.builder(name).decorator(...)}.
 *
 * <pre>{@code
 * RpccServer.builder("inventory")
 *     .decorator(start -> {
 *         long t0 = System.nanoTime();
 *         return (outcome, timing) -> metrics.record(start.kind(), start.serviceFunction(),
 *                 outcome.succeeded(), System.nanoTime() - t0);
 *     })
 * }</pre>
 *
 * <p><b>Which hops.</b> A server decorates every hop that starts running on it, of four
 * {@linkplain Kind kinds}: a {@link Kind#SERVICE} hop (a service function of this server, then the
 * chaining function), a {@link Kind#CHAINING_PROXY} hop (this server runs, as a chaining proxy, the
 * chaining function of a hop another server ran), a {@link Kind#SUB_CHAIN_RETURN} (a sub-chain's
 * result or failure came back, and the chaining function of the hop that started it goes on), and a
 * {@link Kind#MERGE} (every branch of a split merging here has ended, and the merge function runs).
 * The other requests rpcc sends itself (a split's opening and its branches' outcomes arriving at the
 * merge host, which only wait there) are not hops. A hop of a chain sent again replays its first
 * run's outcome and is decorated like any hop. A hop that arrives at a draining server is decorated
 * too, and ends at once as {@link HopOutcome.Refused}; one of a chain already cancelled, or one the
 * server's executor refuses, never starts and is not decorated.
 *
 * <p><b>Order.</b> {@link #decorate} runs on the hop's thread before anything else of the hop (for a
 * refused hop, on the thread that refuses it), with the hop's context current; decorators run in the
 * order they were registered, the first outermost, before the {@link ServerInterceptor}s. When the hop
 * has ended, the listeners are told in the opposite order (the last decorator's first), each once.
 *
 * <p><b>When.</b> {@link Listener#afterRun} is called on the hop's thread when the hop's own code
 * there has returned; {@link Listener#ended} is called exactly once, when the hop is done: its code
 * has returned, the work it started through its context has finished and its partial replies have
 * been written, and the frame it ended with (the next hop's request, the result, the failure) has
 * been written, or failed and been reported instead. So a hop whose sub-chain, split or work
 * outlives its functions is told late; one of a chain cancelled meanwhile is told
 * {@link HopOutcome.Cancelled}. {@code ended} runs on the server's executor (or on the thread that
 * finished the hop, if that executor no longer takes work), never on an event loop, and must be
 * thread-safe. A hop abandoned because its server was closed is told {@link HopOutcome.Failed} with a
 * {@code NodeClosedException} once its thread returns.
 *
 * <p><b>Failures of decorators.</b> If {@link #decorate} throws (or returns {@code null}), the hop is
 * rejected: it does not run, and its chain ends at the originator with a {@link HopRejectedException}
 * naming the hop and host (with the reason of a {@code HopRejectedException} the decorator threw, else
 * the decorator's class and what it threw); the decorators before it are told that
 * {@link HopOutcome.Failed}. An exception thrown by a {@link Listener} is logged and changes neither
 * the hop's outcome nor whether the other listeners are told.
 */
@UnstableApi
@FunctionalInterface
public interface HopDecorator {

    /**
     * Decorates one hop that starts running here.
     *
     * @param start the hop
     * @return who is told how it ended (e.g. {@link Listener#NONE} to watch nothing)
     * @throws HopRejectedException to reject the hop, with the reason its originator sees (any other
     *     exception rejects it too)
     */
    Listener decorate(Start start);

    /** What a hop does at this server. */
    enum Kind {
        /** A service function of this server runs, then the chain's chaining function (here or at the chaining proxy). */
        SERVICE,
        /** This server is a chaining proxy: it runs the chaining function of a hop another server ran. */
        CHAINING_PROXY,
        /**
         * A sub-chain's result (or failure) came back to the hop that started it: that hop's chaining
         * function (or the sub-chain's failure handler) runs; for a composed sub-chain, at the node
         * where the sub-chain ended, on the thread of the hop that ended it.
         */
        SUB_CHAIN_RETURN,
        /** Every branch of a split merging here has ended: the split's merge function runs. */
        MERGE
    }

    /**
     * One hop that starts running.
     *
     * @param kind what it does here
     * @param context the hop's context: chain id, originator, hop number, branch, node, metadata
     *     (the same as {@link ChainContext#current()} while {@link #decorate} runs)
     * @param serviceFunction the application's service function whose result the hop goes on from:
     *     for a {@link Kind#SERVICE} hop the one that runs here, for a {@link Kind#CHAINING_PROXY} hop the
     *     one that ran at the server that delegated; {@code null} for the other kinds, and for a service
     *     hop whose request names a service function this server does not host (the hop then fails with
     *     {@code UNKNOWN_SERVICE_FUNCTION}): a name a peer made up never reaches a decorator, so meters
     *     tagged with it stay as few as the server's functions
     */
    record Start(Kind kind, ChainContext context, @Nullable String serviceFunction) {
        /** A start; {@code kind} and {@code context} are required. */
        public Start {
            Objects.requireNonNull(kind, "kind");
            Objects.requireNonNull(context, "context");
        }
    }

    /** Told how one hop ended. */
    @FunctionalInterface
    interface Listener {
        /** A listener that does nothing. */
        Listener NONE = (outcome, timing) -> { };

        /**
         * Called once on the hop's thread when the hop's own code there has returned (before
         * {@link #ended}, which may come later on another thread): for what belongs to that thread,
         * e.g. closing a tracing scope opened in {@link HopDecorator#decorate}.
         */
        default void afterRun() {
        }

        /**
         * Called each time the hop sends a partial reply ({@code preturn} from its functions or from
         * work they started through its context), once the reply's frame is handed to the transport,
         * on the thread that sent it, before {@link #ended}: for an event on a span, a count. Must be
         * quick and thread-safe; what it throws is logged and changes nothing. A hop that sends its
         * first run's replies again (a replay) is not told of them.
         */
        default void replied() {
        }

        /**
         * Called each time a request this hop sends on (the next hop, a sub-chain's first hop, a
         * split's branch, a chaining proxy's request) fails over: its server's name has several
         * endpoints, the request could not be handed to {@code failed} (no connection, a failed
         * handshake, or the connection failed before the request was written), and it is now sent to
         * {@code next}. Called before {@link #ended}, just before the request goes to {@code next},
         * on the thread that sends it, which may be one of the server's event loops: must be quick,
         * never block, and be thread-safe; what it throws is logged and changes nothing. For an event
         * on a span, a count. A chain's first hop that fails over is told to the client's
         * {@code ChainDecorator.Listener#failedOver}.
         *
         * @param server the server's name
         * @param failed the endpoint that could not take the request
         * @param next the endpoint it is sent to now
         * @param failure why {@code failed} could not take it (its message says what happened)
         */
        default void failedOver(String server, InetSocketAddress failed, InetSocketAddress next, Throwable failure) {
        }

        /**
         * Called exactly once, when the hop is done (see {@link HopDecorator}).
         *
         * @param outcome how it ended
         * @param timing the hop's timing as it joins the chain's timings (time queued, in the service
         *     function, compiling and in the chaining function), or {@code null} if it ended before
         *     it had one (it failed, was rejected, cancelled or refused before its chaining step)
         */
        void ended(HopOutcome outcome, @Nullable HopTiming timing);
    }
}
