package io.rpcc.core.internal.transport;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelOutboundHandlerAdapter;
import io.netty.channel.ChannelPromise;
import io.netty.channel.embedded.EmbeddedChannel;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * How {@link RampingFlushHandler} spreads a burst of frames over flushes: while a read is handled
 * (replies written per request) and when writes reach the loop from elsewhere; that nothing is
 * held past the read's end, the loop's queued tasks, a close, or the connection turning unwritable.
 */
class RampingFlushHandlerTest {
    /**
     * Stands for the socket: records the flushes that reach it, how many frames each let through and
     * the frames in the order they went out. (It does not hand flushes on: EmbeddedChannel runs the
     * loop's queued tasks at every flush, which a real event loop does not.)
     */
    private static final class Flushes extends ChannelOutboundHandlerAdapter {
        final List<Integer> sizes = new ArrayList<>();
        final List<Object> sent = new ArrayList<>();
        private final List<Object> written = new ArrayList<>();

        @Override
        public void write(ChannelHandlerContext ctx, Object msg, ChannelPromise promise) {
            written.add(msg);
            promise.setSuccess();
        }

        @Override
        public void flush(ChannelHandlerContext ctx) {
            sizes.add(written.size());
            sent.addAll(written);
            written.clear();
        }
    }

    /** Answers each message read with one frame, written and flushed at once. */
    private static final class Echo extends ChannelInboundHandlerAdapter {
        @Override
        public void channelRead(ChannelHandlerContext ctx, Object msg) {
            ctx.writeAndFlush(msg);
        }
    }

    private static EmbeddedChannel channel(Flushes flushes, int ceiling) {
        return new EmbeddedChannel(flushes, new RampingFlushHandler(ceiling), new Echo());
    }

    // (written through the pipeline: EmbeddedChannel's own writeAndFlush also runs the loop's queued tasks)

    private static Object[] frames(int n) {
        Object[] frames = new Object[n];
        for (int i = 0; i < n; i++) {
            frames[i] = "frame " + i;
        }
        return frames;
    }

    @Test
    void aReadsRepliesGoOutInFlushesThatDoubleAndTheRestAtTheReadsEnd() {
        Flushes flushes = new Flushes();
        EmbeddedChannel ch = channel(flushes, 64);
        ch.writeInbound(frames(16)); // one read of 16 requests, then the read's end

        assertEquals(List.of(1, 2, 4, 8, 1), flushes.sizes);
        assertEquals(List.of(frames(16)), flushes.sent, "frames leave in the order written");
        ch.finishAndReleaseAll();
    }

    @Test
    void aLongBurstIsFlushedAtTheCeilingAndTheNextReadStartsOverAtOne() {
        Flushes flushes = new Flushes();
        EmbeddedChannel ch = channel(flushes, 8);
        ch.writeInbound(frames(40));
        assertEquals(List.of(1, 2, 4, 8, 8, 8, 8, 1), flushes.sizes);

        flushes.sizes.clear();
        ch.writeInbound(frames(3));
        assertEquals(List.of(1, 2), flushes.sizes, "a new read starts its burst at one frame");
        assertEquals(43, flushes.sent.size());
        ch.finishAndReleaseAll();
    }

    @Test
    void writesFromOutsideAReadRampTooAndTheRestGoOutOnceTheLoopsQueuedTasksAreDone() {
        Flushes flushes = new Flushes();
        EmbeddedChannel ch = channel(flushes, 64);
        for (Object frame : frames(5)) {
            ch.pipeline().writeAndFlush(frame);
        }
        assertEquals(List.of(1, 2), flushes.sizes, "the first at once, then two together; two held");

        ch.runPendingTasks(); // the burst ends with the tasks queued while it was written
        assertEquals(List.of(1, 2, 2), flushes.sizes);
        assertEquals(List.of(frames(5)), flushes.sent);

        ch.pipeline().writeAndFlush("after");
        assertEquals(List.of(1, 2, 2, 1), flushes.sizes, "a burst after the last one's end starts at one");
        ch.finishAndReleaseAll();
    }

    /** A channel outside a read that sent "first" at once and holds "held" (the burst's second frame). */
    private static EmbeddedChannel holdingOneFrame(Flushes flushes) {
        EmbeddedChannel ch = channel(flushes, 64);
        ch.pipeline().writeAndFlush("first");
        ch.pipeline().writeAndFlush("held");
        assertEquals(List.of("first"), flushes.sent);
        return ch;
    }

    @Test
    void nothingHeldIsLeftBehindByAClose() {
        Flushes flushes = new Flushes();
        EmbeddedChannel ch = holdingOneFrame(flushes);

        ch.pipeline().close();
        assertEquals(List.of("first", "held"), flushes.sent, "a close flushes what was held");
        ch.finishAndReleaseAll();
    }

    @Test
    void aConnectionTurningUnwritableFlushesWhatItHolds() {
        Flushes flushes = new Flushes();
        EmbeddedChannel ch = holdingOneFrame(flushes);

        ch.pipeline().fireChannelWritabilityChanged(); // as the channel does when it turns unwritable
        assertEquals(List.of("first"), flushes.sent, "still writable: held on");
        ch.unsafe().outboundBuffer().setUserDefinedWritability(1, false);
        ch.pipeline().fireChannelWritabilityChanged();
        assertEquals(List.of("first", "held"), flushes.sent, "held frames go to the socket rather than wait");
        ch.finishAndReleaseAll();
    }
}
