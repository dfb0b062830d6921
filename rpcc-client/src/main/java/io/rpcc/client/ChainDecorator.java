package io.rpcc.client;

import io.rpcc.core.ChainCancelledException;
import io.rpcc.core.ChainException;
import io.rpcc.core.ChainResult;
import io.rpcc.core.ChainTimeoutException;
import io.rpcc.core.UnstableApi;
import java.net.InetSocketAddress;
import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * Code around every whole call a client makes: it sees the call before it starts (and may change
 * it), and is told exactly once how it ended, in every way a chain starts ({@link RpccClient#startChain},
 * {@link RpccClient#call}, {@link RpccClient#runChain}, {@link RpccClient#startChainWithReplies},
 * {@link RpccClient#callWithReplies}, interactive mode or not). For metrics, tracing, logging, audit;
 * modelled on gRPC's {@code ClientInterceptor.interceptCall} and Armeria's decorators. Registered
 * with {@code RpccClient.builder().decorator(...)}.
 *
 * <pre>{@code
 * RpccClient client = RpccClient.builder()
 *     .decorator(start -> {
 *         long t0 = System.nanoTime();
 *         return ChainDecorator.Decoration.of(start.call(), (result, failure) ->
 *             metrics.record(start.call().serviceFunction(), failure, System.nanoTime() - t0));
 *     })
 *     .build();
 * }</pre>
 *
 * <p><b>Order.</b> Decorators wrap one another in the order they were registered: the first is the
 * outermost. Each {@link #decorate} runs on the thread that starts the call, in registration order,
 * each receiving the call the previous one returned; the {@link ClientInterceptor}s run after the
 * last decorator (inside all of them). When the call has ended, the listeners are told in the
 * opposite order (the innermost first, the first decorator last), each once.
 *
 * <p><b>The outcome.</b> {@link Listener#ended} is called exactly once per call: when the future
 * completes (its listeners are told before the future's own callbacks run), when {@code runChain}
 * returns or throws (before it does), when a cancel ends the call (at once, with the
 * {@link ChainCancelledException}), when it times out ({@link ChainTimeoutException}), and, for a
 * {@link ReplySet}, when the set has ended (the result and every reply are in, or an error, a timeout
 * or a cancel ended it), not when the result arrives. A call that failed to start (a closed client, an
 * interceptor that threw, a later decorator that threw) ends with that failure.
 *
 * <p><b>Failures of decorators.</b> If {@link #decorate} throws (or returns {@code null}), the call does
 * not start: it fails with a {@link ChainDecoratorException} naming the decorator and carrying what
 * it threw ({@code runChain} and {@code startChainWithReplies} throw it, {@code startChain} returns a
 * future failed with it), the decorators before it are told that outcome, and the client stays
 * usable. An exception thrown by a {@link Listener} is logged and does not change the call's outcome
 * nor keep the other listeners from being told.
 */
@UnstableApi
@FunctionalInterface
public interface ChainDecorator {

    /**
     * Decorates one call that is about to start.
     *
     * @param start the call as the application (and earlier decorators) made it, and how it starts
     * @return the call to start (the same or a changed copy) and who is told how it ended
     */
    Decoration decorate(Start start);

    /** How a call was started. */
    enum Mode {
        /** {@link RpccClient#startChain} or {@link RpccClient#call}: the result comes in a future. */
        FUTURE,
        /** {@link RpccClient#runChain}: the calling thread waits for the result. */
        BLOCKING,
        /** {@link RpccClient#startChainWithReplies} or {@link RpccClient#callWithReplies}: a {@link ReplySet}. */
        WITH_REPLIES
    }

    /**
     * One call about to start.
     *
     * @param call the call as the application and the earlier decorators made it
     * @param mode how it was started
     * @param interactive whether it runs in interactive mode (the call's setting, else the client's default)
     */
    record Start(ChainCall call, Mode mode, boolean interactive) {
        /** A start; {@code call} and {@code mode} are required. */
        public Start {
            Objects.requireNonNull(call, "call");
            Objects.requireNonNull(mode, "mode");
        }
    }

    /**
     * What a decorator does with one call.
     *
     * @param call the call to start instead (the same, or a changed copy, e.g. with {@link ChainCall#metadata})
     * @param listener who is told how the call ended
     */
    record Decoration(ChainCall call, Listener listener) {
        /** A decoration; both parts are required. */
        public Decoration {
            Objects.requireNonNull(call, "call");
            Objects.requireNonNull(listener, "listener");
        }

        /** Starts {@code call} and tells {@code listener} how it ended. */
        public static Decoration of(ChainCall call, Listener listener) {
            return new Decoration(call, listener);
        }

        /** Starts {@code call} and listens to nothing. */
        public static Decoration of(ChainCall call) {
            return new Decoration(call, (result, failure) -> { });
        }
    }

    /** Told how one call ended. */
    @FunctionalInterface
    interface Listener {

        /**
         * Called once on the thread that started the call, when the client's start method has done
         * its part there: for {@code startChain} and {@code startChainWithReplies} as they return
         * (the chain may have ended already, or end later on another thread), for {@code runChain}
         * once the chain has ended, just before {@link #ended}. For what belongs to the calling
         * thread, e.g. closing a tracing scope opened in {@link ChainDecorator#decorate}.
         */
        default void afterStart() {
        }

        /**
         * Called each time the chain is sent again by the call's {@link RetryPolicy} (idempotent
         * retry: same chain id, the servers replay what they kept), before {@link #ended}, on the
         * client's executor: for an event on a span, a count. Not called for a chain the application
         * sends again itself ({@link RpccClient#retransmit}) nor in interactive mode.
         *
         * @param attempt the number of the attempt now sent (2 for the first retry)
         * @param failure why the attempt before it failed (a retryable {@link ChainException})
         */
        default void retried(int attempt, Throwable failure) {
        }

        /**
         * Called for each partial reply ({@code preturn} at any hop) delivered to the call, before
         * {@link #ended}, on the thread that delivers it (an event loop of the client, or in
         * interactive mode the thread that runs the chaining function): for a count or a size, not for
         * work. In every mode: with a {@link ReplySet} it is each reply the set takes in; for
         * {@code startChain}, {@code call} and {@code runChain} each reply that arrives for the call,
         * which {@link ChainResult#replies()} holds if the chain completes (a chain that fails after
         * some replies has had them told; a chain found broken and then run step by step has had
         * those of its broken attempts told too, though its result holds only the later ones). A
         * reply sent again by a replayed hop for a retry is told once.
         *
         * @param bytes the length of the reply's frame as it came on the wire; 0 for a reply produced
         *     at the client itself (interactive mode runs the chaining function there)
         */
        default void replied(int bytes) {
        }

        /**
         * Called each time a hop the client sends itself (the chain's first hop; in interactive mode,
         * every hop) fails over: its server's name has several endpoints, the request could not be
         * handed to {@code failed} (no connection, a failed handshake, or the connection failed
         * before the request was written), and it is now sent to {@code next}. Called before
         * {@link #ended}, just before the request goes to {@code next}, on the thread that sends it,
         * which may be one of the client's event loops: must be quick, never block, and be
         * thread-safe; what it throws is logged and changes nothing. For an event on a span, a count.
         * A hop a server forwards that fails over is told to that server's
         * {@code HopDecorator.Listener#failedOver}.
         *
         * @param server the server's name
         * @param failed the endpoint that could not take the request
         * @param next the endpoint it is sent to now
         * @param failure why {@code failed} could not take it (its message says what happened)
         */
        default void failedOver(String server, InetSocketAddress failed, InetSocketAddress next, Throwable failure) {
        }

        /**
         * Called exactly once, when the call has ended, on the thread that ended it (the client's
         * executor, the thread that cancelled, or the caller of {@code runChain}).
         *
         * @param result the chain's result, if it arrived; for a {@link ReplySet}, it may be present
         *     together with a failure when the set ended by a cancel or a timeout after the result
         *     but before every reply
         * @param failure why the call failed, or {@code null} if it succeeded: mostly a
         *     {@link ChainException} subclass ({@link ChainCancelledException} for a cancel,
         *     {@link ChainTimeoutException} for a timeout), or what kept it from starting
         */
        void ended(@Nullable ChainResult result, @Nullable Throwable failure);
    }
}
