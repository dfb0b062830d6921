package io.rpcc.server.internal;

import io.netty.buffer.ByteBuf;
import io.netty.channel.Channel;
import io.rpcc.core.BranchId;
import io.rpcc.core.SubChainReplyHandler;
import io.rpcc.core.internal.chain.Node;
import io.rpcc.core.internal.chain.ReplyWindow;
import io.rpcc.core.internal.wire.ChainErrorFrame;
import io.rpcc.core.internal.wire.ChainHeader;
import io.rpcc.core.internal.wire.ChainKey;
import io.rpcc.core.internal.wire.ChainSecret;
import io.rpcc.core.internal.wire.NodeAddress;
import io.rpcc.core.internal.wire.QuietFrame;
import io.rpcc.core.internal.wire.TxFrames;
import io.rpcc.core.internal.wire.ReplyFrame;
import io.rpcc.core.internal.wire.ReplyStream;
import io.rpcc.core.internal.wire.WindowUpdateFrame;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.atomic.AtomicInteger;
import org.jspecify.annotations.Nullable;

/**
 * The creator's side of one sub-chain whose partial replies go to its creator (paper 7.1): to the
 * sub-chain's hops it is their originator (their REPLY, QUIET, ERROR and WINDOW_UPDATE frames come
 * here, under the sub-chain's reply secret, and it grants their reply streams room in a window of
 * its own); to its own originator (the creator hop's reply-to: the chain's originator, or the
 * creator of an enclosing sub-chain) it is a producer of replies, like a hop. Frames are handled in
 * the order they arrived, one at a time, on the node's executor (never an event loop): each reply
 * goes through the sub-chain's {@link SubChainReplyHandler} (or is passed on as it is) and what it
 * passes on is sent, within the room the originator granted for the reply's hop and host, on one
 * connection; each QUIET's (or ERROR's) credit follows on that same connection, after every reply
 * that arrived before it. So the originator still recovers the credit only after every reply.
 */
final class ReplyRelay {
    /** The room the relay grants the sub-chain's streams: it buffers at most this many replies and bytes. */
    private static final int WINDOW_REPLIES = 1024;
    private static final long WINDOW_BYTES = 16L << 20;

    private final Node node;
    private final ReplyStreams streams;
    private final ReplyRelays table;
    private final ChainHeader creator;
    private final ChainSecret inSecret;
    private final ChainSecret outSecret;
    private final SubChainReplyHandler handler;
    private final long expiresNanos;
    private final Duration writeTimeout;
    private final ReplyWindow window = new ReplyWindow(WINDOW_REPLIES, WINDOW_BYTES);
    private final ConcurrentLinkedQueue<Object> queue = new ConcurrentLinkedQueue<>();
    private final AtomicInteger queued = new AtomicInteger();
    private volatile boolean cancelled;
    /** The thread draining the queue now, or {@code null}; guarded by this. */
    private Thread drainer;
    // touched only by the thread that drains the queue:
    /**
     * The outgoing reply streams: the replies of one hop of the sub-chain at one host, passed on (the
     * branches of a split in the sub-chain share hop numbers, on different hosts).
     */
    private final Map<ReplyStream, SendWindow> out = new HashMap<>();
    private CompletableFuture<Channel> channel;

    /**
     * The relay at {@code node} of the sub-chain started by the hop of {@code creator}, whose frames
     * carry {@code inSecret}; {@code handler} (or {@code null}: pass on) sees its replies; forgotten
     * at {@code expiresNanos}; lost replies counted in {@code table}.
     */
    ReplyRelay(Node node, ReplyStreams streams, ReplyRelays table, ChainHeader creator, ChainSecret inSecret,
               SubChainReplyHandler handler, long expiresNanos) {
        this.node = node;
        this.streams = streams;
        this.table = table;
        this.creator = creator;
        this.inSecret = inSecret;
        this.outSecret = creator.replySecret();
        this.handler = handler;
        this.expiresNanos = expiresNanos;
        this.writeTimeout = node.settings().replyWriteTimeout();
    }

    long chainId() {
        return creator.chainId();
    }

    String origin() {
        return creator.origin();
    }

    ChainSecret inSecret() {
        return inSecret;
    }

    /** Whether the chain was cancelled here: nothing more is passed on. */
    boolean cancelled() {
        return cancelled;
    }

    boolean expired(long nowNanos) {
        return nowNanos - expiresNanos >= 0;
    }

    /**
     * The chain was cancelled: nothing more is passed on, and a reply waiting for room (which its
     * originator, having ended the chain, will never grant) stops waiting.
     */
    void cancel() {
        cancelled = true;
        synchronized (this) {
            if (drainer != null) {
                drainer.interrupt();
            }
        }
    }

    /** A frame of the sub-chain arrived (on an event loop); {@code from} is its connection. */
    void arrived(Object frame, Channel from) {
        switch (frame) {
            case WindowUpdateFrame w -> window.update(w.chainId(), w.stream(), from, w.replies(), w.bytes(),
                    w.wantBytes(), (r, b) -> node.transport().send(from, new WindowUpdateFrame(
                            new ChainKey(w.chainId(), inSecret), w.stream(), true, r, b, 0)));
            case ReplyFrame r -> {
                window.arrived(r.chainId(), r.stream(), from, r.size());
                enqueue(r);
            }
            default -> enqueue(frame);
        }
    }

    private void enqueue(Object frame) {
        queue.add(frame);
        if (queued.getAndIncrement() == 0) {
            try {
                node.executor().execute(this::drain);
            } catch (RejectedExecutionException e) {
                drain(); // the executor is shut down: the node is closing; pass on what can be
            }
        }
    }

    private void drain() {
        synchronized (this) {
            drainer = Thread.currentThread();
        }
        try {
            do {
                Object frame = queue.poll();
                try {
                    handle(frame);
                } catch (RuntimeException e) {
                    lost("relaying " + frame.getClass().getSimpleName() + " failed: " + e);
                }
                if (queued.get() == 1) {
                    giveBackRoom(); // nothing else waits: the room this relay holds goes back to its originator
                }
            } while (queued.decrementAndGet() > 0);
        } finally {
            synchronized (this) {
                drainer = null;
            }
            if (cancelled) {
                Thread.interrupted(); // what cancel() set: this thread goes on to other work
            }
        }
    }

    /** Counts and logs what could not be passed on, unless the chain was cancelled (then nothing is). */
    private void lost(String what) {
        if (!cancelled) {
            table.lost(creator, what);
        }
    }

    private void handle(Object frame) {
        switch (frame) {
            case ReplyFrame r -> {
                try {
                    if (!cancelled) {
                        relay(r);
                    }
                } finally {
                    window.consumed(r.size());
                }
            }
            case QuietFrame q -> {
                if (!cancelled) {
                    forward(q.withSecret(outSecret), q.withSecret(creator.attemptSecret()));
                }
            }
            case TxFrames.Vote v -> { // (passed on even for a cancelled chain: its originator answers a late vote)
                forward(withSecret(v, outSecret), withSecret(v, creator.attemptSecret()));
            }
            case ChainErrorFrame e -> {
                if (!cancelled) {
                    forward(new ChainErrorFrame(e.chainId(), outSecret, e.code(), e.failure(), e.credit()),
                            new ChainErrorFrame(e.chainId(), creator.attemptSecret(), e.code(), e.failure(), e.credit()));
                }
            }
            default -> throw new IllegalStateException("not a frame to relay: " + frame);
        }
    }

    /** {@code v} under {@code secret}, the secret of the node it is passed on to. */
    private static TxFrames.Vote withSecret(TxFrames.Vote v, ChainSecret secret) {
        return new TxFrames.Vote(new io.rpcc.core.internal.wire.ChainKey(v.chainId(), secret), v.attempt(), v.credit(), v.voter(), v.hop(),
                new TxFrames.Ballot(v.yes(), v.why(), v.clock(), v.heldReplies()));
    }

    /** Runs the handler on reply {@code r} and sends on what it passes on. */
    private void relay(ReplyFrame r) {
        if (r.decodeError() != null) {
            lost("a partial reply of hop " + r.hop() + " at '" + r.host() + "' cannot be read at '"
                    + node.name() + "': " + r.decodeError().getMessage());
            return;
        }
        List<Object> passed = new ArrayList<>(1);
        if (handler == null) {
            passed.add(r.value());
        } else {
            boolean[] open = {true};
            try {
                handler.onReply(r.value(), r.hop(), r.host(), v -> {
                    if (!open[0]) {
                        throw new IllegalStateException("passOn called after the reply handler returned");
                    }
                    passed.add(v);
                });
            } catch (Exception e) {
                if (e instanceof InterruptedException) {
                    Thread.currentThread().interrupt();
                }
                lost("the reply handler of the sub-chain started by hop " + creator.hop() + " ('"
                        + creator.serviceFunction() + "' at '" + node.name() + "') threw " + e + " on a reply of hop "
                        + r.hop() + " at '" + r.host() + "': the reply is dropped");
                return;
            } finally {
                open[0] = false;
            }
        }
        for (int i = 0; i < passed.size(); i++) {
            send(passed.get(i), r.branch(), r.stream(), passedSeq(r.seq(), i));
        }
    }

    /**
     * The number of the {@code index}th value passed on for reply number {@code seq}: the same in
     * every attempt of the chain, so that the originator delivers a reply the relay of a replayed
     * sub-chain passes on again only once. The first value passed on for a reply (the only one, for a
     * handler that transforms replies one for one) keeps the reply's number, so a stream passed on
     * stays numbered in order and costs its originator a counter; further values of the same reply
     * are unnumbered (delivered as often as the handler passes them on).
     */
    static long passedSeq(long seq, int index) {
        return index == 0 ? seq : ReplyFrame.UNKEYED;
    }

    /** Sends a reply of {@code stream} on, within the room the originator granted that stream. */
    private void send(Object value, BranchId branch, ReplyStream stream, long seq) {
        int hop = stream.hop();
        Channel ch = channel();
        if (ch == null) {
            lost("cannot reach '" + creator.replyTo().node() + "' to pass on a partial reply of hop " + hop);
            return;
        }
        ByteBuf frame = node.transport().encode(ch, new ReplyFrame(outChain(), branch, stream, seq, value, null));
        boolean written = false;
        try {
            if (!ch.isWritable() && !node.transport().awaitWritable(ch, writeTimeout)) {
                lost("'" + creator.replyTo().node() + "' has not read partial replies for "
                        + writeTimeout.toMillis() + " ms: a reply of hop " + hop + " is dropped");
                return;
            }
            SendWindow w = out.computeIfAbsent(stream,
                    k -> streams.open(creator.chainId(), outSecret, hop, stream.host()));
            written = w.acquire(frame.readableBytes(), writeTimeout, () -> cancelled || !ch.isActive(),
                    (r, b, want) -> ask(ch, stream, r, b, want),
                    () -> node.transport().write(ch, frame).whenComplete((v, e) -> {
                        if (e != null) {
                            lost("a partial reply of hop " + hop + " was not sent on: " + Node.unwrap(e));
                        }
                    }));
            if (!written && !cancelled && !ch.isActive()) {
                lost("the connection to '" + creator.replyTo().node() + "' closed while a reply of hop " + hop
                        + " waited for room: the reply is dropped");
            } else if (!written) {
                lost("no room in the reply window of '" + creator.replyTo().node() + "' for "
                        + writeTimeout.toMillis() + " ms: a reply of hop " + hop + " is dropped");
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            lost("interrupted while passing on a reply of hop " + hop);
        } finally {
            if (!written) {
                frame.release();
            }
        }
    }

    private void ask(Channel ch, ReplyStream stream, int replies, long bytes, long wantBytes) {
        node.transport().send(ch, new WindowUpdateFrame(outChain(), stream, false, replies, bytes, wantBytes));
    }

    /** The creator's chain, under the secret of the frames to its reply-to node. */
    private ChainKey outChain() {
        return new ChainKey(creator.chainId(), outSecret);
    }

    /** Gives every outgoing stream's unused room back to the originator (the relay is idle). */
    private void giveBackRoom() {
        if (!out.isEmpty()) {
            releaseStreams(channel()); // a closed connection has already released them
        }
    }

    /**
     * Sends {@code frame} (credit) to the relay's originator behind every reply passed on so far; if
     * that cannot be done, sends {@code direct} (the same, under the chain's own secret) straight to
     * the chain's originator, so that the chain still ends.
     */
    private void forward(Object frame, Object direct) {
        Channel ch = channel();
        NodeAddress to = creator.replyTo();
        CompletableFuture<Void> sent = ch != null ? node.transport().send(ch, frame)
                : node.transport().send(to.node(), node.addressOf(to), frame);
        sent.exceptionallyCompose(e -> {
            if (to.equals(creator.originator())) {
                lost("credit could not be returned to the originator: " + Node.unwrap(e));
                return CompletableFuture.completedFuture(null);
            }
            lost("cannot reach '" + to.node() + "'; credit sent straight to the originator");
            NodeAddress origin = creator.originator();
            return node.transport().send(origin.node(), node.addressOf(origin), direct);
        });
    }

    /** The connection to this relay's originator (opened on first use), or {@code null} if it cannot be reached. */
    private Channel channel() {
        if (channel == null) {
            NodeAddress to = creator.replyTo();
            channel = node.transport().connect(to.node(), node.addressOf(to));
        }
        try {
            Channel ch = channel.join();
            if (ch.isActive()) {
                return ch;
            }
        } catch (RuntimeException e) {
            // unreachable: the caller counts what is lost
        }
        channel = null;
        releaseStreams(null);
        return null;
    }

    /**
     * Closes the outgoing streams, giving their unused room back to the originator over {@code ch};
     * with {@code ch} null (the connection they asked for room on is gone) nothing is sent: the room
     * they held and the grant they may wait for were on that connection. A stream of the same reply
     * stream opened on the next connection asks for room afresh, rather than wait out the reply
     * write timeout for an answer to a request that went out on the closed one.
     */
    private void releaseStreams(@Nullable Channel ch) {
        for (var e : out.entrySet()) {
            ReplyStream s = e.getKey();
            streams.release(creator.chainId(), outSecret, s.hop(), s.host(), e.getValue(), (replies, bytes, want) -> {
                if (ch != null && !cancelled) {
                    ask(ch, s, replies, bytes, 0);
                }
            });
        }
        out.clear();
    }
}
