package io.rpcc.core.internal.transport;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.netty.channel.Channel;
import io.netty.channel.embedded.EmbeddedChannel;
import io.rpcc.core.ChainErrorCode;
import io.rpcc.core.ChainState;
import io.rpcc.core.internal.wire.ChainRequest;
import io.rpcc.core.internal.wire.HopFailure;
import io.rpcc.core.internal.wire.RequestStream;
import java.io.ByteArrayInputStream;
import java.io.InputStream;
import java.nio.channels.ClosedChannelException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * {@link Resend}: a frame whose write failed before it left is sent once more, on the connection
 * {@code connect} gives then; nothing else is sent again, and nothing more than once.
 */
class ResendTest {
    private final List<EmbeddedChannel> channels = new ArrayList<>();
    private final AtomicInteger connects = new AtomicInteger();
    private final List<Channel> writtenOn = new ArrayList<>();

    @AfterEach
    void close() {
        channels.forEach(EmbeddedChannel::finishAndReleaseAll);
    }

    private CompletableFuture<Channel> connect() {
        connects.incrementAndGet();
        EmbeddedChannel ch = new EmbeddedChannel();
        channels.add(ch);
        return CompletableFuture.completedFuture(ch);
    }

    private static HopFailure unsent() {
        return new HopFailure(ChainErrorCode.HOP_UNREACHABLE, "connection to 'p' failed while sending: closed",
                new UnsentFrame("the frame was not written in full", new ClosedChannelException()));
    }

    /** Writes that fail with {@code failures}, one per write, then succeed. */
    private CompletableFuture<Void> send(Object frame, HopFailure... failures) {
        AtomicInteger writes = new AtomicInteger();
        return Resend.once(this::connect, ch -> frame, (ch, f) -> {
            writtenOn.add(ch);
            int n = writes.getAndIncrement();
            return n < failures.length ? CompletableFuture.failedFuture(failures[n]) : CompletableFuture.completedFuture(null);
        });
    }

    @Test
    void anUnsentFrameIsSentOnceMoreOnANewConnection() {
        send("frame", unsent()).join();
        assertEquals(2, connects.get());
        assertEquals(2, writtenOn.size());
        assertSame(channels.get(1), writtenOn.get(1), "the second write is on the connection connect gave then");
    }

    @Test
    void atMostTwice() {
        HopFailure second = unsent();
        CompletionException e = assertThrows(CompletionException.class, () -> send("frame", unsent(), second).join());
        assertSame(second, e.getCause());
        assertEquals(2, writtenOn.size());
    }

    @Test
    void aFrameThatMayHaveReachedThePeerIsNotSentAgain() {
        HopFailure other = new HopFailure(ChainErrorCode.FRAME_TOO_LARGE, "too large");
        CompletionException e = assertThrows(CompletionException.class, () -> send("frame", other).join());
        assertSame(other, e.getCause());
        assertEquals(1, writtenOn.size());
    }

    @Test
    void aRequestWithADataStreamIsNotSentAgain() {
        RequestStream stream = new RequestStream() {
            @Override
            public long id() {
                return 1;
            }

            @Override
            public InputStream input() {
                return new ByteArrayInputStream(new byte[0]);
            }

            @Override
            public void discard(String why) {
            }
        };
        ChainRequest streamed = new ChainRequest(null, null, ChainState.empty(), null).withStream(stream);
        assertThrows(CompletionException.class, () -> send(streamed, unsent()).join());
        assertEquals(1, writtenOn.size(), "its stream was bound to the first connection");
        assertEquals(1, connects.get());
    }
}
