package io.rpcc.core.internal.transport;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.embedded.EmbeddedChannel;
import io.rpcc.core.TypeRegistry;
import io.rpcc.core.internal.wire.GoAwayFrame;
import io.rpcc.core.internal.wire.Hello;
import io.rpcc.core.internal.wire.PingFrame;
import io.rpcc.core.internal.wire.Serialization;
import io.rpcc.core.internal.wire.StreamFrames;
import io.rpcc.core.internal.wire.WireFormat;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * {@link GracefulClose} on its own, in an {@link EmbeddedChannel}: what it writes, what it refuses
 * after its GOAWAY (released, failed as unsent), when it closes, and its bounds.
 */
class GracefulCloseTest {
    private static final WireFormat WIRE = new WireFormat(new Serialization(TypeRegistry.empty()));
    private static final Duration BOUND = Duration.ofMillis(200);

    /** A channel with the handler and, behind it, a recorder of the events it fires; handshake done if {@code hello}. */
    private static EmbeddedChannel channel(List<Object> events, boolean hello) {
        EmbeddedChannel ch = new EmbeddedChannel(new GracefulClose(WIRE, BOUND), new ChannelInboundHandlerAdapter() {
            @Override
            public void userEventTriggered(ChannelHandlerContext ctx, Object evt) {
                events.add(evt);
            }
        });
        if (hello) {
            ch.attr(ConnectionAttributes.PEER).set(new Hello("peer", "127.0.0.1", 7000, 1 << 20));
        }
        return ch;
    }

    private static Object written(EmbeddedChannel ch) {
        ByteBuf frame = ch.readOutbound();
        if (frame == null) {
            return null;
        }
        try {
            frame.skipBytes(4);
            return WIRE.decode(frame);
        } finally {
            frame.release();
        }
    }

    @Test
    void theNodeThatLetsGoWritesGoAwayRefusesLaterFramesAndClosesOnTheAnswer() {
        List<Object> events = new ArrayList<>();
        EmbeddedChannel ch = channel(events, true);
        ByteBuf before = Unpooled.copiedBuffer(new byte[] {1});
        ch.writeAndFlush(before);
        GracefulClose.goAway(ch);
        assertEquals(List.of(GracefulClose.GOING_AWAY), events, "out of the peer table before the GOAWAY");
        assertTrue(GracefulClose.goingAway(ch));
        ByteBuf first = ch.readOutbound();
        assertEquals(1, first.readableBytes(), "what was written before goes first");
        first.release();
        assertEquals(GoAwayFrame.IDLE_CONNECTION, written(ch));

        ByteBuf after = Unpooled.copiedBuffer(new byte[] {2});
        ChannelFuture refused = ch.writeAndFlush(after);
        assertFalse(refused.isSuccess());
        assertInstanceOf(UnsentFrame.class, refused.cause());
        assertEquals(0, after.refCnt(), "a refused frame is released");
        assertNull(ch.readOutbound(), "nothing after the GOAWAY");
        assertTrue(ch.isOpen(), "open until the peer answers: it may still be writing");

        GracefulClose.received(ch);
        ch.runPendingTasks();
        assertFalse(ch.isOpen(), "closed on the answer");
        ch.finishAndReleaseAll();
    }

    @Test
    void thePeerThatReadsAGoAwayAnswersAndClosesOnceItsAnswerIsWritten() {
        List<Object> events = new ArrayList<>();
        EmbeddedChannel ch = channel(events, true);
        GracefulClose.received(ch);
        assertEquals(List.of(GracefulClose.GOING_AWAY), events);
        assertEquals(GoAwayFrame.IDLE_CONNECTION, written(ch));
        ch.runPendingTasks();
        assertFalse(ch.isOpen());
        GracefulClose.received(ch); // a second one: ignored
        assertNull(ch.readOutbound(), "answered once");
        ch.finishAndReleaseAll();
    }

    @Test
    void bothAtOnceEachTakesTheOthersGoAwayAsTheAnswer() {
        EmbeddedChannel ch = channel(new ArrayList<>(), true);
        GracefulClose.goAway(ch);
        GracefulClose.goAway(ch); // (twice: one GOAWAY)
        assertEquals(GoAwayFrame.IDLE_CONNECTION, written(ch));
        assertNull(ch.readOutbound());
        GracefulClose.received(ch);
        ch.runPendingTasks();
        assertNull(ch.readOutbound(), "no second GOAWAY");
        assertFalse(ch.isOpen());
        ch.finishAndReleaseAll();
    }

    @Test
    void aPeerThatNeverAnswersLosesTheConnectionAtTheBound() throws Exception {
        EmbeddedChannel ch = channel(new ArrayList<>(), true);
        ch.freezeTime(); // the channel's clock moves only when told: a slow machine cannot reach the bound early
        GracefulClose.goAway(ch);
        assertEquals(GoAwayFrame.IDLE_CONNECTION, written(ch));
        ch.advanceTimeBy(BOUND.toNanos() - 1, TimeUnit.NANOSECONDS);
        ch.runScheduledPendingTasks();
        assertTrue(ch.isOpen(), "not before the bound");
        ch.advanceTimeBy(1, TimeUnit.NANOSECONDS);
        ch.runScheduledPendingTasks();
        assertFalse(ch.isOpen(), "closed at the bound");
        ch.finishAndReleaseAll();
    }

    @Test
    void theFramesOfOpenStreamsStillGoAfterTheGoAwayAndNothingElse() {
        EmbeddedChannel ch = channel(new ArrayList<>(), true);
        GracefulClose.goAway(ch);
        assertEquals(GoAwayFrame.IDLE_CONNECTION, written(ch));
        List<Object> stream = List.of(new StreamFrames.Data(7, new byte[] {1, 2}), new StreamFrames.End(7, 2, null),
                new StreamFrames.Credit(8, 100), new StreamFrames.Cancel(9, "stop"));
        for (Object f : stream) {
            assertTrue(ch.writeAndFlush(WIRE.encode(f, 1 << 20, ch.alloc())).isSuccess(), f + " is refused");
            assertInstanceOf(f.getClass(), written(ch));
        }
        ChannelFuture ping = ch.writeAndFlush(WIRE.encode(new PingFrame(false, 0), 1 << 20, ch.alloc()));
        assertInstanceOf(UnsentFrame.class, ping.cause(), "any other frame is refused");
        ChannelFuture tiny = ch.writeAndFlush(Unpooled.copiedBuffer(new byte[] {0, 0, 0, 2, 10}));
        assertInstanceOf(UnsentFrame.class, tiny.cause(), "a buffer too short to hold a type is refused");
        assertNull(ch.readOutbound());
        ch.finishAndReleaseAll();
    }

    @Test
    void aConnectionWithoutHandshakeIsClosedAtOnceWithoutGoAway() {
        List<Object> events = new ArrayList<>();
        EmbeddedChannel ch = channel(events, false);
        GracefulClose.goAway(ch);
        assertNull(ch.readOutbound());
        assertFalse(ch.isOpen());
        assertEquals(List.of(), events);
        ch.finishAndReleaseAll();
    }
}
