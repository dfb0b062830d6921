package io.rpcc.core.internal.transport;

import io.netty.channel.Channel;
import io.netty.channel.ChannelFuture;
import io.netty.util.AttributeKey;
import io.rpcc.core.Refusal;
import io.rpcc.core.internal.wire.PingFrame;

/**
 * The answers to one connection's PINGs, one round trip at a time: a PING is answered at once when
 * no answer of the connection is waiting to be written; one that arrives while an answer waits is
 * owed, and answered (with the latest payload) when that answer's write ends. A PING that arrives
 * while one is already owed replaces it: the replaced one is dropped, unanswered, and held against
 * the connection's allowance of bad frames ({@link BadFrames}: past it the connection is closed as
 * {@link Refusal#TOO_MANY_BAD_FRAMES}). So a connection holds at most one PING answer to write, and a
 * peer that floods PINGs is cut off after a few dozen of them, rather than costing the node the
 * thousands of answers that filled its write budget or, answered one at a time, hundreds of
 * thousands of PINGs decoded on the event loop its other connections share. The allowance refills:
 * an honest peer whose answers wait behind a write side its own reader holds back (an unread reply
 * set) may have a PING dropped now and then without losing its connection; and an rpcc node has at
 * most one measuring PING on its way ({@link RoundTrips}), and a health PING. Used on the
 * connection's event loop only.
 */
final class PingAnswers {
    private static final AttributeKey<PingAnswers> KEY = AttributeKey.valueOf("rpcc.pingAnswers");

    private final Channel ch;
    private final FrameWriter writer;
    /** An answer was written and its write has not ended. */
    private boolean answering;
    /** A PING arrived while {@link #answering}: it is answered, with {@link #owedPayload}, next. */
    private boolean owed;
    private long owedPayload;

    private PingAnswers(Channel ch, FrameWriter writer) {
        this.ch = ch;
        this.writer = writer;
    }

    /** The answers of connection {@code ch}, written with {@code writer}. */
    static PingAnswers of(Channel ch, FrameWriter writer) {
        PingAnswers a = ch.attr(KEY).get();
        if (a == null) {
            a = new PingAnswers(ch, writer);
            ch.attr(KEY).set(a);
        }
        return a;
    }

    /** The peer sent a PING with {@code payload}. */
    void onPing(long payload) {
        if (!answering) {
            answer(payload);
            return;
        }
        if (owed) {
            BadFrames bad = BadFrames.of(ch);
            if (bad != null) {
                bad.refused("a PING while the answers to two earlier ones still waited to be written");
            }
        }
        owed = true;
        owedPayload = payload;
    }

    private void answer(long payload) {
        answering = true;
        ChannelFuture written = writer.writeOwn(ch, new PingFrame(true, payload));
        written.addListener(f -> {
            answering = false;
            if (owed && f.isSuccess() && ch.isActive()) {
                owed = false;
                answer(owedPayload);
            }
        });
    }
}
