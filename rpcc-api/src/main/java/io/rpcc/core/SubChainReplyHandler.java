package io.rpcc.core;

import java.util.function.Consumer;
import org.jspecify.annotations.Nullable;

/**
 * What the server that starts a {@link SubChain} does with the sub-chain's partial replies (paper
 * 7.1): they go to the sub-chain's creator, where this handler, registered with
 * {@link SubChain#onReply}, sees each of them, in the order each hop sent them, and passes on to the
 * creator's own originator (the enclosing sub-chain's creator, or the chain's originator) what it
 * chooses: the reply as it is, a transformed one, several, or none. It runs on the creator's executor,
 * never on an event loop; replies of one hop are handled one at a time, in order.
 *
 * <pre>{@code
 * SubChain.to("index", "search").params(query)
 *         .onReply((hit, hop, host, passOn) -> {
 *             if (((Hit) hit).score() > 0.5) {
 *                 passOn.accept(((Hit) hit).title()); // transform; low scores are dropped
 *             }
 *         })
 * }</pre>
 *
 * <p>Without a handler, every reply is passed on unchanged. {@code passOn} may be called only while
 * the handler runs (later calls throw {@link IllegalStateException}); what it passes on reaches the
 * originator's reply set before the chain ends there, exactly once. A handler that throws drops
 * that reply (counted and logged at the creator) and the chain goes on.
 */
@FunctionalInterface
public interface SubChainReplyHandler {
    /**
     * Handles {@code reply}, sent by hop {@code hop} at server {@code host} inside the sub-chain,
     * passing on to the creator's originator what should reach it.
     */
    void onReply(@Nullable Object reply, int hop, String host, Consumer<@Nullable Object> passOn) throws Exception;
}
