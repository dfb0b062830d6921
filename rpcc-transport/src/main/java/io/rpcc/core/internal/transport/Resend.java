package io.rpcc.core.internal.transport;

import io.netty.channel.Channel;
import io.rpcc.core.internal.wire.ChainRequest;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.function.BiFunction;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Function;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Sends a frame to a peer, and once more on a new connection if the first write failed before the
 * frame left ({@link UnsentFrame}): the connection the pool handed out closed, or its peer let it
 * go ({@link GracefulClose}), at that moment. The peer never read the first copy, so it cannot act
 * on the frame twice. Sent at most twice; a frame whose write may have reached the peer, and a
 * request whose data stream has begun to go (or is not this node's own), are not sent again: a
 * request refused unsent gave its stream back ({@link HopStreams#notSent}), whose first byte was
 * not read, so it goes again with it. A frame sent
 * again may arrive after frames the sender handed to the peer later.
 */
final class Resend {
    private static final Logger log = LoggerFactory.getLogger(NodeTransport.class);

    private Resend() {
    }

    /**
     * Connects with {@code connect}, builds the frame for the connection with {@code frameFor} and
     * writes it with {@code write}; again, once, if the write failed unsent.
     */
    static CompletableFuture<Void> once(Supplier<CompletableFuture<Channel>> connect, Function<Channel, Object> frameFor,
                                        BiFunction<Channel, Object, CompletableFuture<Void>> write) {
        AtomicReference<Object> first = new AtomicReference<>();
        // (a send that succeeds, nearly every one, passes through this one stage unchanged)
        return attempt(connect, frameFor, write, first).exceptionallyCompose(e -> {
            Throwable cause = e instanceof CompletionException && e.getCause() != null ? e.getCause() : e;
            if (!unsent(cause) || !resendable(first.get())) {
                return CompletableFuture.failedFuture(cause);
            }
            log.debug("a frame's write failed before it left ({}); sent again on a new connection", cause.getMessage());
            return attempt(connect, frameFor, write, new AtomicReference<>());
        });
    }

    private static CompletableFuture<Void> attempt(Supplier<CompletableFuture<Channel>> connect,
                                                   Function<Channel, Object> frameFor,
                                                   BiFunction<Channel, Object, CompletableFuture<Void>> write,
                                                   AtomicReference<Object> built) {
        return connect.get().thenCompose(ch -> {
            Object frame = frameFor.apply(ch);
            built.set(frame);
            return write.apply(ch, frame);
        });
    }

    /** Whether {@code failure} (of a send, unwrapped) says the frame never left ({@link UnsentFrame}). */
    static boolean unsent(Throwable failure) {
        return failure instanceof UnsentFrame || failure.getCause() instanceof UnsentFrame;
    }

    /** Whether {@code frame} may be sent again: anything but a request whose data stream cannot go again. */
    private static boolean resendable(Object frame) {
        return !(frame instanceof ChainRequest r && r.stream() != null
                && !(r.stream() instanceof OutboundStream s && s.unsent()));
    }
}
