package io.rpcc.spring.boot.reactor;

import io.rpcc.client.ReplySet;
import io.rpcc.core.ChainResult;
import java.util.Objects;
import java.util.concurrent.CompletionException;
import reactor.adapter.JdkFlowAdapter;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/**
 * A chain's partial replies and result as Reactor types.
 *
 * <pre>{@code
 * @GetMapping(value = "/quotes/{sku}", produces = MediaType.TEXT_EVENT_STREAM_VALUE)
 * Flux<Quote> quotes(@PathVariable String sku) {
 *     ReplySet<Quote> replies = rpcc.startChainWithReplies(ChainCall.to("pricing", "quote").params(sku), Quote.class);
 *     return RpccReactive.flux(replies);
 * }
 * }</pre>
 *
 * <p>Each method subscribes to the reply set, which takes one subscriber: call one of them once per set.
 */
public final class RpccReactive {
    private RpccReactive() {
    }

    /**
     * The partial replies of {@code replies} as a {@link Flux}: each reply as it arrives (at the
     * subscriber's demand: the reply buffer, and so the servers' {@code preturn}, waits for it), then
     * complete when the chain has finished, or an error with the chain's {@link io.rpcc.core.ChainException}
     * when it failed or timed out (after the replies received before). Cancelling the subscription
     * cancels the chain ({@link ReplySet#cancel()}). Signals come from the client's executor.
     */
    public static <T> Flux<T> flux(ReplySet<T> replies) {
        Objects.requireNonNull(replies, "replies");
        return JdkFlowAdapter.flowPublisherToFlux(replies.publisher()).doOnCancel(replies::cancel);
    }

    /**
     * The chain's final result as a {@link Mono}: its {@link ChainResult}, or an error with its
     * {@link io.rpcc.core.ChainException}. It may complete before the last partial replies arrive; it
     * does not read the replies. Cancelling it cancels the chain.
     */
    public static Mono<ChainResult> result(ReplySet<?> replies) {
        Objects.requireNonNull(replies, "replies");
        return Mono.fromFuture(replies.result(), true).onErrorMap(CompletionException.class,
                e -> e.getCause() != null ? e.getCause() : e).doOnCancel(replies::cancel);
    }

    /**
     * The replies, then the result: a {@link Flux} of {@link ReplyEvent}s, one {@link ReplyEvent.Reply}
     * per partial reply and a last {@link ReplyEvent.Result} with the chain's result, or an error with
     * the chain's exception. For server-sent events in WebFlux, for instance, map each to a
     * {@code ServerSentEvent} named after {@link ReplyEvent#name()}.
     */
    public static <T> Flux<ReplyEvent<T>> events(ReplySet<T> replies) {
        Flux<ReplyEvent<T>> partial = flux(replies).map(ReplyEvent.Reply::new);
        return partial.concatWith(Mono.fromFuture(replies.result(), true).map(ReplyEvent.Result::new));
    }

    /** A partial reply, or the chain's result. */
    public sealed interface ReplyEvent<T> {
        /** {@code reply} or {@code result}: the name of the server-sent event. */
        String name();

        /** A partial reply. */
        record Reply<T>(T value) implements ReplyEvent<T> {
            @Override
            public String name() {
                return "reply";
            }
        }

        /** The chain's result, after every reply. */
        record Result<T>(ChainResult result) implements ReplyEvent<T> {
            @Override
            public String name() {
                return "result";
            }
        }
    }
}
