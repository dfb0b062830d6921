package io.rpcc.spring.boot.web;

import io.rpcc.client.ReplySet;
import io.rpcc.core.ChainErrorCode;
import io.rpcc.core.ChainException;
import io.rpcc.core.ChainResult;
import java.io.IOException;
import java.time.Duration;
import java.util.Objects;
import java.util.concurrent.CompletionException;
import java.util.concurrent.Flow;
import java.util.function.Function;
import org.jspecify.annotations.Nullable;
import org.springframework.web.servlet.mvc.method.annotation.SseEmitter;

/**
 * A chain's partial replies and final result as server-sent events, for Spring MVC (no Reactor needed):
 *
 * <pre>{@code
 * @GetMapping("/checkout/{id}/progress")
 * SseEmitter progress(@PathVariable String id) {
 *     ReplySet<Quote> replies = rpcc.startChainWithReplies(ChainCall.to("catalog", "price")
 *             .params(order).chainingFunction(ChainingFunctionSource.of(Checkout.class)), Quote.class);
 *     return RpccSse.emitter(replies);
 * }
 * }</pre>
 *
 * <p>The stream, each event's data written by Spring MVC's message converters (JSON for records):
 * <pre>
 * event:reply
 * data:{"sku":"KB-42","cents":4999}
 *
 * event:reply
 * data:{"sku":"MOUSE-7","cents":1999}
 *
 * event:result
 * data:{"orderId":"o-1","totalCents":6998,"carrier":"road","days":2}
 * </pre>
 * <ul>
 *   <li>{@value #REPLY}: one per partial reply, as it arrives (the next is read once this one is written,
 *       so a slow HTTP client slows the chain's producers down instead of filling memory);</li>
 *   <li>{@value #RESULT}: the chain's final result ({@link ChainResult#value()}, by default), once every
 *       reply has been sent; then the stream ends;</li>
 *   <li>{@value #ERROR}: instead of the result when the chain failed, timed out or was cancelled:
 *       {@link ErrorEvent} ({@code code}, {@code message}, {@code host}, {@code hop}); then the stream ends.</li>
 * </ul>
 * If the HTTP client goes away or the emitter times out, the chain is cancelled.
 */
public final class RpccSse {
    /** The event name of a partial reply. */
    public static final String REPLY = "reply";
    /** The event name of the chain's result. */
    public static final String RESULT = "result";
    /** The event name of the chain's failure. */
    public static final String ERROR = "error";

    private static final org.apache.commons.logging.Log LOG = org.apache.commons.logging.LogFactory.getLog(RpccSse.class);

    private RpccSse() {
    }

    /**
     * The data of an {@value #ERROR} event.
     *
     * @param code the {@link io.rpcc.core.ChainErrorCode} name, e.g. {@code SERVICE_FUNCTION_FAILED}
     * @param message the failure's message
     * @param host the node where the chain failed
     * @param hop the hop number where it failed
     */
    public record ErrorEvent(String code, String message, String host, int hop) {
        /** The event data of {@code failure}. */
        public static ErrorEvent of(Throwable failure) {
            if (failure instanceof ChainException e) {
                return new ErrorEvent(e.code().name(), String.valueOf(e.getMessage()), e.host(), e.hop());
            }
            // not a chain's failure: its text stays in this server (it may say more than a browser should see)
            return new ErrorEvent("INTERNAL", "the chain's events could not be produced here; see the server's log", "", 0);
        }
    }

    /**
     * An emitter that streams {@code replies} and the chain's result, with Spring MVC's default
     * async request timeout ({@code spring.mvc.async.request-timeout}).
     */
    public static SseEmitter emitter(ReplySet<?> replies) {
        return emitter(replies, null, ChainResult::value);
    }

    /** An emitter that streams {@code replies} and the chain's result, open at most {@code timeout}. */
    public static SseEmitter emitter(ReplySet<?> replies, @Nullable Duration timeout) {
        return emitter(replies, timeout, ChainResult::value);
    }

    /**
     * An emitter that streams {@code replies}, then {@code resultData} of the chain's result as the
     * {@value #RESULT} event (e.g. {@code r -> r} for the whole {@link ChainResult}, with its path and
     * originator), open at most {@code timeout} ({@code null}: Spring MVC's default).
     */
    public static <T> SseEmitter emitter(ReplySet<T> replies, @Nullable Duration timeout,
                                         Function<ChainResult, ? extends @Nullable Object> resultData) {
        Objects.requireNonNull(replies, "replies");
        Objects.requireNonNull(resultData, "resultData");
        SseEmitter emitter = timeout == null ? new SseEmitter() : new SseEmitter(timeout.toMillis());
        Forwarder<T> forwarder = new Forwarder<>(replies, emitter, resultData);
        emitter.onTimeout(forwarder::timedOut);
        emitter.onError(e -> forwarder.abandon());
        emitter.onCompletion(forwarder::abandon);
        replies.publisher().subscribe(forwarder);
        return emitter;
    }

    /** Writes each reply as an event, reading the next once it is written, then the result or the error. */
    private static final class Forwarder<T> implements Flow.Subscriber<T> {
        private final ReplySet<T> replies;
        private final SseEmitter emitter;
        private final Function<ChainResult, ? extends @Nullable Object> resultData;
        private volatile Flow.@Nullable Subscription subscription;
        private volatile boolean finished;

        Forwarder(ReplySet<T> replies, SseEmitter emitter, Function<ChainResult, ? extends @Nullable Object> resultData) {
            this.replies = replies;
            this.emitter = emitter;
            this.resultData = resultData;
        }

        @Override
        public void onSubscribe(Flow.Subscription s) {
            subscription = s;
            s.request(1);
        }

        @Override
        public void onNext(T reply) {
            if (send(REPLY, reply)) {
                Flow.Subscription s = subscription;
                if (s != null) {
                    s.request(1);
                }
            }
        }

        @Override
        public void onError(Throwable failure) {
            if (!(failure instanceof ChainException)) {
                LOG.warn("rpcc: a chain's server-sent events ended with an error of this server", failure);
            }
            if (send(ERROR, ErrorEvent.of(failure))) {
                finish();
            }
        }

        @Override
        public void onComplete() {
            Object data;
            try {
                data = resultData.apply(replies.result().join());
            } catch (CompletionException e) {
                onError(e.getCause() != null ? e.getCause() : e);
                return;
            } catch (RuntimeException e) {
                onError(e);
                return;
            }
            if (send(RESULT, data)) {
                finish();
            }
        }

        /** Sends one event; on failure (the HTTP client went away) stops the chain and ends the emitter. */
        private boolean send(String name, @Nullable Object data) {
            try {
                emitter.send(SseEmitter.event().name(name).data(data == null ? "null" : data));
                return true;
            } catch (IOException | RuntimeException e) {
                abandon();
                emitter.completeWithError(e);
                return false;
            }
        }

        private void finish() {
            finished = true;
            emitter.complete();
        }

        /**
         * The emitter's time ran out before the chain ended: cancel the chain, and end the stream
         * with an {@value #ERROR} event saying so rather than breaking it off.
         */
        void timedOut() {
            if (!finished) {
                abandon();
                try {
                    emitter.send(SseEmitter.event().name(ERROR).data(new ErrorEvent(ChainErrorCode.TIMEOUT.name(),
                            "the event stream's time ran out before the chain ended; the chain is cancelled", "", 0)));
                    emitter.complete();
                } catch (IOException | RuntimeException e) {
                    emitter.completeWithError(e);
                }
            }
        }

        /** The response ended before the chain (timeout, error, client gone): cancel the chain. */
        void abandon() {
            if (!finished) {
                finished = true;
                Flow.Subscription s = subscription;
                if (s != null) {
                    s.cancel();
                }
                replies.cancel();
            }
        }
    }
}
