package io.rpcc.server.internal;

import io.netty.buffer.ByteBuf;
import io.netty.channel.Channel;
import io.rpcc.core.ChainErrorCode;
import io.rpcc.core.ChainFailure;
import io.rpcc.core.internal.chain.FailureLog;
import io.rpcc.core.internal.chain.HopControl;
import io.rpcc.core.internal.chain.Node;
import io.rpcc.core.internal.chain.Replies;
import io.rpcc.core.internal.chain.ReplyWindow;
import io.rpcc.core.internal.function.FunctionRuntime;
import io.rpcc.core.internal.wire.HopFailure;
import io.rpcc.core.internal.wire.LocatedFailure;
import io.rpcc.core.spi.WallClock;
import io.rpcc.core.internal.wire.ChainErrorFrame;
import io.rpcc.core.internal.wire.ChainHeader;
import io.rpcc.core.internal.wire.ChainKey;
import io.rpcc.core.internal.wire.ChainSecret;
import io.rpcc.core.internal.wire.Credit;
import io.rpcc.core.internal.wire.QuietFrame;
import io.rpcc.core.internal.wire.ReplyFrame;
import io.rpcc.core.internal.wire.ReplyStream;
import io.rpcc.core.internal.wire.WindowUpdateFrame;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;

/**
 * Partial replies of one hop at a server, and the hop's part in the chain's termination protocol
 * (see {@code docs/explanation/termination.md}).
 *
 * <p>Locally, the partially ordering protocol: one count (see {@link Replies}). Globally, credit
 * recovery: at hand-over ({@link #handOver}), a hop that never replied and has nothing running
 * passes its whole credit on, so a plain chain costs no extra message. Any other hop keeps half and
 * returns it in a QUIET frame when its count reaches zero, on the connection that carried its
 * replies, after the last of them: since that connection is FIFO, the credit's arrival at the
 * originator proves that every reply of this hop arrived before it.
 *
 * <p>Flow control: the hop's replies are one reply stream of the chain, which sends only within the
 * room its originator granted ({@link SendWindow}, {@link ReplyWindow}); {@code preturn} waits for
 * room on the calling thread (at most the node's reply write timeout, then it throws
 * {@code FlowControlException}; a cancel ends the wait at once, whatever the thread), and the room
 * left when the hop is quiet goes back just before its credit. A sandboxed chaining function's wall
 * time does not run while it waits ({@link WallClock}).
 */
final class HopReplies implements Replies {
    private static final long COUNT = 0xFFFF_FFFFL;
    /** A reply was produced or a task failed: the hop keeps credit, to return once it is quiet. */
    private static final long REPLIED = 1L << 32;

    private final Node node;
    private final ReplyStreams streams;
    private final ChainTrails trails;
    private final FailureLog failures;
    private final HandOffs handOffs;
    private final ChainHeader header;
    /** The secret of the frames to the reply-to node (the chain's, or its sub-chain's creator's). */
    private final ChainSecret secret;
    private final HopControl control;
    private final Duration writeTimeout;
    /** Low 32 bits: the POP count; bit 32: a reply was produced. Starts with the invocation's unit. */
    private final AtomicLong state = new AtomicLong(1);
    private volatile Credit kept = Credit.ZERO;
    private volatile CompletableFuture<Channel> replyChannel;
    private volatile SendWindow window;
    private final AtomicBoolean handedOver = new AtomicBoolean();
    /** The first error thrown by work started through the context, reported instead of QUIET. */
    private final AtomicReference<Throwable> taskFailure = new AtomicReference<>();
    private final AtomicBoolean replyLost = new AtomicBoolean();
    private final CompletableFuture<Void> quiet = new CompletableFuture<>();
    private volatile boolean abandoned;
    /** Orders an atomic hop's vote ({@link #vote}) against the closing node's {@link #abandon}. */
    private final Object voting = new Object();
    /** The credit an atomic hop kept after its vote took its slice, or {@code null} before a vote. Guarded by voting. */
    private Credit leftAfterVote;
    /** An atomic hop's VOTE waiting for the hop's chaining step ({@link #holdVote}), or {@code null}. Guarded by voting. */
    private HeldVote heldVote;

    /** An atomic hop's VOTE ({@code frame}) that goes to {@code peer}, at {@code address}. */
    record HeldVote(String peer, InetSocketAddress address, Object frame) {
    }
    /** The number of the next reply (see {@link ReplyFrame#seq()}). */
    private final AtomicLong nextSeq = new AtomicLong();
    /** Where the hop's replies are kept for a replay of the hop, or {@code null}. */
    private volatile HopOutcomes.Outcome recording;
    /** What {@code preturn} threw because a reply could not reach its originator, and why; or null. */
    private volatile Unsent unsent;

    /** A {@code preturn} that threw {@code thrown} because its reply could not get out ({@code why}). */
    private record Unsent(RuntimeException thrown, HopFailure why) {
    }

    /**
     * The replies of the hop described by {@code header}, running at {@code node} under
     * {@code control}, which leaves {@code trails} when the hop is quiet; its reply stream is
     * registered in {@code streams} while it waits for or holds room, lost replies are logged to
     * {@code failures}, and its QUIET frame counts in {@code handOffs} until it is written.
     */
    HopReplies(Node node, ReplyStreams streams, ChainTrails trails, FailureLog failures, HandOffs handOffs,
               ChainHeader header, HopControl control) {
        this.node = node;
        this.streams = streams;
        this.trails = trails;
        this.failures = failures;
        this.handOffs = handOffs;
        this.header = header;
        this.secret = header.replySecret();
        this.control = control;
        this.writeTimeout = node.settings().replyWriteTimeout();
    }

    @Override
    public void raise() {
        if (!tryRaise(0)) {
            throw new IllegalStateException("hop " + header.hop() + " of chain " + chainId() + " at '" + node.name()
                    + "' has finished; start the work while the service function runs (ChainContext.wrap, "
                    + "executor, startThread) so that the chain waits for it");
        }
    }

    private boolean tryRaise(long flags) {
        while (true) {
            long s = state.get();
            if ((s & COUNT) == 0) {
                return false;
            }
            if (state.compareAndSet(s, (s + 1) | flags)) {
                return true;
            }
        }
    }

    @Override
    public void failed(Throwable error) {
        if (taskFailure.compareAndSet(null, error)) {
            // the failing task still holds its unit: the count is not zero, so the hop keeps credit
            state.getAndUpdate(s -> s | REPLIED);
        }
    }

    @Override
    public void lower() {
        long s = state.decrementAndGet();
        if ((s & COUNT) == 0) {
            quiet();
        }
    }

    /**
     * Called once, when the hop's service and chaining functions are done and the chain moves on
     * (next hop, result or error): returns the share of {@code credit} to send with it. If the hop
     * never replied and nothing of it still runs, that is all of it; otherwise half, and the other
     * half comes back in a QUIET frame once the hop is quiet.
     */
    public Credit handOver(Credit credit) {
        if (!handedOver.compareAndSet(false, true)) {
            if (abandoned) {
                return Credit.ZERO; // the closing node reported the hop with its credit: what it sends now is late
            }
            throw new IllegalStateException("hop " + header.hop() + " of chain " + chainId() + " handed over twice");
        }
        if (state.compareAndSet(1, 0)) {
            trails.left(header, control);
            quiet.complete(null);
            return credit;
        }
        Credit half = credit.isZero() ? Credit.ZERO : credit.half(); // (zero: nothing to share; never from the wire)
        kept = half;
        lower();
        return half;
    }

    /**
     * An atomic hop votes: takes the vote's slice of {@code credit}, the hop's credit now, and
     * returns the credit the hop keeps (half; the vote carries the other half). {@code null} if the
     * hop may not vote: it voted already (a hop votes once), or it has handed over (the closing node
     * reported it with all its credit, or the chain moved on): a vote then would return credit twice.
     * The credit kept is what {@link #abandon} reports if the node closes before the hop hands over.
     */
    Credit vote(Credit credit) {
        synchronized (voting) {
            if (leftAfterVote != null || handedOver.get()) {
                return null;
            }
            leftAfterVote = credit.half();
            return leftAfterVote;
        }
    }

    /**
     * Holds the hop's VOTE, taken by {@link #vote}, while its chaining step runs: if the step ends the
     * chain and its result goes to the same node, both are written at once, the VOTE first
     * ({@link HopReports#sendResult}); else it goes alone before the chain's next frame (a request, a
     * failure: {@link NextHopSender#carryOut}, {@link AtomicHops#sendHeldVote}), or when the node
     * abandons the hop.
     */
    void holdVote(HeldVote vote) {
        synchronized (voting) {
            heldVote = vote;
        }
    }

    /** The VOTE held ({@link #holdVote}), taken: {@code null} if none is held (or it was taken). */
    HeldVote takeHeldVote() {
        synchronized (voting) {
            HeldVote v = heldVote;
            heldVote = null;
            return v;
        }
    }

    /**
     * Whether the closing node took this hop's hand-over ({@link #abandon}) and reported it to the
     * originator itself: whatever the hop would still send is late.
     */
    boolean abandoned() {
        return abandoned;
    }

    /** Whether the hop has handed its chain on (next hop, result or error): it no longer holds the chain. */
    public boolean handedOver() {
        return handedOver.get();
    }

    /**
     * The node is closing while this hop runs: if the hop has not handed over yet, takes that
     * hand-over (the hop's own will carry no credit) and returns the whole {@code credit}, to be
     * sent to the originator with the failure; else {@code null} (the chain has moved on).
     */
    public Credit abandon(Credit credit) {
        AtomicHops.sendVote(node, takeHeldVote()); // its slice of the credit goes home with it, as the report's does
        synchronized (voting) {
            if (!handedOver.compareAndSet(false, true)) {
                return null;
            }
            abandoned = true;
            if (leftAfterVote != null) { // the vote took its slice home: only the rest goes with the report
                credit = leftAfterVote;
            }
        }
        SendWindow w = window;
        if (w != null) {
            w.close(); // a preturn waiting for room in it ends now, not after the reply write timeout
        }
        quiet.complete(null);
        return credit;
    }

    /**
     * The failure of work this hop started through its context, which ends the chain at its
     * originator (sent instead of the hop's QUIET frame), or {@code null}: none failed, or the chain
     * was cancelled. Final once the hop is quiet.
     */
    LocatedFailure taskFailure() {
        Throwable failed = taskFailure.get();
        if (failed == null || kept.isZero() || control.isCancelled()) {
            return null;
        }
        ChainErrorFrame frame = taskErrorFrame(secret, failed, Credit.ZERO);
        return new LocatedFailure(frame.code(), frame.failure());
    }

    /**
     * Completes when the hop has handed over and nothing it started runs or sends any more (its
     * QUIET frame, if it has one, counts in the server's {@link HandOffs} by then).
     */
    public CompletableFuture<Void> whenQuiet() {
        return quiet;
    }

    /**
     * Keeps every reply this hop sends in {@code outcome} (with its number), so that a replay of the
     * hop for a later attempt of the chain sends them again ({@link #resend}). Called before the hop runs.
     */
    void recordInto(HopOutcomes.Outcome outcome) {
        recording = outcome;
    }

    /**
     * This hop's replies as seen from code other than its service function (chaining functions,
     * failure and reply handlers, merges): their replies are sent unnumbered ({@link ReplyFrame#UNKEYED})
     * and not kept for a replay. Such code may run again on a retry (a replay carries out its
     * decision anew) or in a diagnosis, and may share this hop's number with a sub-chain's last hop
     * at this node: numbering its replies would drop or repeat some.
     */
    Replies unkeyed() {
        return unkeyed;
    }

    /** Whom each reply sent is told to: the watch of the hop that runs now ({@link #tellReplies}). */
    private volatile Runnable replied = () -> { };

    /** Tells {@code watch} of each partial reply sent from now on (a composed return takes over from its hop). */
    void tellReplies(HopWatch watch) {
        if (watch != HopWatch.NONE) {
            replied = watch::replied;
        }
    }

    private final Replies unkeyed = new Replies() {
        @Override
        public void preturn(Object reply) {
            startReply();
            sendReply(reply, ReplyFrame.UNKEYED, null, null);
            replied.run();
        }

        @Override
        public void raise() {
            HopReplies.this.raise();
        }

        @Override
        public void lower() {
            HopReplies.this.lower();
        }

        @Override
        public void failed(Throwable error) {
            HopReplies.this.failed(error);
        }
    };

    @Override
    public void preturn(Object reply) {
        startReply();
        long seq = nextSeq.getAndIncrement();
        HopOutcomes.Outcome r = recording;
        sendReply(reply, seq, r != null && r.replied(seq, reply) ? r : null, r);
        replied.run();
    }

    /** Checks that a reply may be sent now and raises the count for it (lowered once it is written, or not). */
    private void startReply() {
        if (control.isCancelled()) {
            throw cancelled();
        }
        if (!tryRaise(REPLIED)) {
            throw new IllegalStateException("preturn after hop " + header.hop() + " of chain " + chainId() + " at '"
                    + node.name() + "' finished; hand work to other threads with ChainContext.wrap, executor or "
                    + "startThread so that the chain waits for it");
        }
    }

    /**
     * A replay of this hop (its chain was sent again): sends the replies its first run sent, with
     * their numbers, so that the originator gets those an earlier attempt lost and drops the others.
     * Called on the replaying hop's thread before it hands over; throws as {@code preturn} does.
     */
    void resend(List<HopOutcomes.KeptReply> kept) {
        for (HopOutcomes.KeptReply k : kept) {
            if (control.isCancelled()) {
                throw cancelled();
            }
            if (!tryRaise(REPLIED)) {
                throw new IllegalStateException("hop " + header.hop() + " of chain " + chainId() + " handed over "
                        + "before its replies were sent again");
            }
            nextSeq.accumulateAndGet(k.seq() + 1, Math::max);
            try {
                send(k.value(), k.seq(), null);
            } catch (HopFailure f) {
                throw new HopFailure(f.code(), f.exceptionName(), "hop " + header.hop() + " at '" + node.name()
                        + "', replayed for a chain sent again, could not send its partial replies again: "
                        + f.getMessage(), f.details(), f.fields(), f);
            }
        }
    }

    /**
     * Sends reply number {@code seq} as {@code preturn} does; throws what it throws. A reply that could
     * not reach the originator (unreachable, or this node closing) leaves the hop incomplete: the
     * outcome it is recorded in ({@code recordedIn}, if not {@code null}) is not kept, whichever
     * thread sent the reply, so that a retry runs the hop again rather than replay it without that
     * reply (a task started through the context fails the hop retryably after its service function
     * returned: a replay would end the chain complete with the reply lost).
     */
    private void sendReply(Object reply, long seq, HopOutcomes.Outcome keptIn, HopOutcomes.Outcome recordedIn) {
        try {
            send(reply, seq, keptIn);
        } catch (HopFailure f) {
            if (control.isCancelled()) {
                throw cancelled();
            }
            RuntimeException thrown = f.located(node.name(), header.hop(), node.pathThrough(header)).toException();
            if (f.code() == ChainErrorCode.HOP_UNREACHABLE || f.code() == ChainErrorCode.NODE_CLOSED) {
                if (recordedIn != null) {
                    recordedIn.replyNotSent();
                }
                unsent = new Unsent(thrown, f);
            }
            throw thrown;
        }
    }

    /**
     * Sends reply number {@code seq}; the caller raised the count, which this lowers once the frame is
     * written (or not: then, first, the reply is taken out of {@code keptIn}, where it was kept for a
     * replay, if not null).
     *
     * @throws HopFailure if the reply cannot be sent
     */
    private void send(Object reply, long seq, HopOutcomes.Outcome keptIn) {
        boolean handedToWriter = false;
        try {
            Channel ch = channel();
            ByteBuf frame = node.transport().encode(ch, new ReplyFrame(replyChain(), header.branch(), stream(), seq,
                    reply, null));
            boolean written = false;
            try {
                if (!ch.isWritable() && !awaitWritable(ch)) {
                    if (control.isCancelled()) {
                        throw cancelled();
                    }
                    if (!ch.isActive()) {
                        throw failure(ChainErrorCode.HOP_UNREACHABLE, "the connection to the originator '"
                                + header.replyTo().node() + "' closed while hop " + header.hop() + " at '" + node.name()
                                + "' waited to send it a partial reply");
                    }
                    throw failure(ChainErrorCode.FLOW_CONTROL, "the originator '" + header.replyTo().node() + "' has not read "
                            + "partial replies for " + writeTimeout.toMillis() + " ms (its connection has not drained)");
                }
                awaitRoom(ch, frame.readableBytes(), () -> node.transport().write(ch, frame).whenComplete((v, e) -> {
                    if (e != null && replyLost.compareAndSet(false, true)) {
                        failures.replyLost(header, Node.unwrap(e));
                    }
                    lower();
                }));
                written = true;
            } finally {
                if (!written) {
                    frame.release();
                }
            }
            handedToWriter = true;
        } finally {
            if (!handedToWriter) {
                if (keptIn != null) {
                    keptIn.unreplied(seq); // not sent: a replay must not send it either
                }
                lower();
            }
        }
    }

    /**
     * If {@code e} (what the service function threw) is, or was caused by, an exception this hop's
     * {@code preturn} threw because the reply could not reach its originator (unreachable, or this
     * node closing), the failure to report instead of the service function's: the same code, which
     * is retryable, since the chain sent again runs the hop again and its replies can arrive then.
     * Otherwise {@code null}.
     */
    HopFailure replyUnsent(Throwable e, String serviceFunction) {
        Unsent u = unsent;
        if (u == null) {
            return null;
        }
        Throwable t = e;
        for (int depth = 0; t != null && depth < 16; depth++, t = t.getCause()) { // (bounded: causes may cycle)
            if (t == u.thrown()) {
                HopFailure why = u.why();
                return new HopFailure(why.code(), why.exceptionName(), "service function '" + serviceFunction
                        + "' stopped because hop " + header.hop() + " at '" + node.name() + "' could not send a partial "
                        + "reply to '" + header.replyTo().node() + "': " + why.getMessage() + "; the hop may have run "
                        + "in part, and runs again if the chain is sent again (RetryPolicy)", why.details(), e);
            }
        }
        return null;
    }

    /**
     * Takes room for a reply of {@code size} bytes in this hop's reply window, asking the originator
     * for more and waiting (at most the reply write timeout) if there is none, then runs {@code send}.
     */
    private void awaitRoom(Channel ch, int size, Runnable send) {
        SendWindow w = window();
        boolean got;
        try {
            if (ch.eventLoop().inEventLoop()) {
                got = w.acquire(size, Duration.ZERO, (r, b, want) -> ask(ch, r, b, want), send);
                if (!got) {
                    throw failure(ChainErrorCode.FLOW_CONTROL, "hop " + header.hop() + " at '" + node.name() + "' has no "
                            + "room left in the reply window of the originator '" + header.replyTo().node() + "' and preturn "
                            + "was called on an event loop, where it cannot wait");
                }
            } else {
                // the cancel wakes the wait (control.whenCancelled in window()), since the thread may be one it
                // does not interrupt (a captured or pushed context, a chaining function); the time waited for
                // the reader is not a sandboxed chaining function's own (WallClock)
                // the wait also ends soon after the connection closes: the grant would have come on it
                try (var waiting = WallClock.waitingForReader(writeTimeout)) {
                    got = w.acquire(size, writeTimeout, () -> control.isCancelled() || !ch.isActive(),
                            (r, b, want) -> ask(ch, r, b, want), send);
                }
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw failure(ChainErrorCode.FLOW_CONTROL, "interrupted while hop " + header.hop() + " at '" + node.name()
                    + "' waited for the originator '" + header.replyTo().node() + "' to read partial replies");
        }
        if (!got && control.isCancelled()) {
            throw cancelled();
        }
        if (!got && abandoned) {
            throw failure(ChainErrorCode.NODE_CLOSED, "server '" + node.name() + "' was closed while hop " + header.hop()
                    + " waited to send a partial reply");
        }
        if (!got && !ch.isActive()) {
            throw failure(ChainErrorCode.HOP_UNREACHABLE, "the connection to the originator '" + header.replyTo().node()
                    + "' closed while hop " + header.hop() + " at '" + node.name() + "' waited for room to send it a "
                    + "partial reply");
        }
        if (!got) {
            throw failure(ChainErrorCode.FLOW_CONTROL, "hop " + header.hop() + " at '" + node.name() + "' could not send "
                    + "a partial reply of " + size + " bytes: the originator '" + header.replyTo().node() + "' has not read "
                    + "partial replies for " + writeTimeout.toMillis() + " ms (its reply buffer is full"
                    + ", or smaller than this reply: RpccClient.builder().replyBufferBytes)");
        }
    }

    /** This hop's reply window, registered with the node on first use so that grants find it. */
    private SendWindow window() {
        SendWindow w = window;
        if (w == null) {
            synchronized (this) {
                w = window;
                if (w == null) {
                    w = streams.open(header.chainId(), secret, header.hop(), node.name());
                    window = w;
                    // registered once the stream exists: a cancel before this runs it at once, and a waiter
                    // checks the cancel under the window's lock before each wait
                    control.whenCancelled(w::wake);
                }
            }
        }
        return w;
    }

    private void ask(Channel ch, int replies, long bytes, long wantBytes) {
        node.transport().send(ch, new WindowUpdateFrame(replyChain(), stream(), false, replies, bytes, wantBytes));
    }

    /** The chain, under the secret of the frames to the reply-to node. */
    private ChainKey replyChain() {
        return new ChainKey(header.chainId(), secret);
    }

    /** This hop's reply stream: its replies from this node. */
    private ReplyStream stream() {
        return new ReplyStream(header.hop(), node.name());
    }

    private boolean awaitWritable(Channel ch) {
        try (var waiting = WallClock.waitingForReader(writeTimeout)) {
            return node.transport().awaitWritable(ch, writeTimeout, control::isCancelled);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw failure(ChainErrorCode.FLOW_CONTROL, "interrupted while waiting for the originator to read");
        } catch (IllegalStateException e) {
            throw failure(ChainErrorCode.FLOW_CONTROL, "the originator's buffer is full and preturn was called on an "
                    + "event loop, where it cannot wait");
        }
    }

    /** What {@code preturn} throws once the chain is cancelled. */
    private RuntimeException cancelled() {
        return LocatedFailure.detected(ChainErrorCode.CANCELLED, "chain " + chainId()
                + " was cancelled by its originator: stop producing replies", node.name(), header.hop(),
                node.pathThrough(header)).toException();
    }

    private HopFailure failure(ChainErrorCode code, String message) {
        return new HopFailure(code, message);
    }

    /** The connection to the originator, the same for every reply and the QUIET frame of this hop. */
    private Channel channel() {
        CompletableFuture<Channel> f = replyChannel;
        if (f == null) {
            synchronized (this) {
                f = replyChannel;
                if (f == null) {
                    f = node.transport().connect(header.replyTo().node(), node.replyAddress(header));
                    replyChannel = f;
                }
            }
        }
        try {
            return f.join();
        } catch (CompletionException e) {
            throw Node.unwrap(e) instanceof HopFailure hf ? hf
                    : new HopFailure(ChainErrorCode.HOP_UNREACHABLE, "cannot reach originator '" + header.replyTo().node() + "'");
        }
    }

    private void quiet() {
        trails.left(header, control);
        try {
            returnCredit();
        } finally {
            quiet.complete(null); // the QUIET frame counts in handOffs now: the hop is never out of both
        }
    }

    /** Sends the room this hop did not use and the credit it kept (or its task's failure) to the originator. */
    private void returnCredit() {
        Credit credit = kept;
        // a cancelled chain has ended at its originator: the room and the credit would be late frames
        boolean returns = !credit.isZero() && !control.isCancelled();
        CompletableFuture<Channel> f = replyChannel;
        SendWindow w = window;
        if (w != null) { // the room this hop did not use goes back, before the credit (a reply was sent: f is done)
            Channel ch = f.isDone() && !f.isCompletedExceptionally() ? f.join() : null;
            streams.release(header.chainId(), secret, header.hop(), node.name(), w, (replies, bytes, want) -> {
                if (returns && ch != null && ch.isActive()) {
                    ask(ch, replies, bytes, 0);
                }
            });
        }
        if (!returns) {
            return;
        }
        Throwable failed = taskFailure.get();
        Object frame = failed == null ? quietFrame(secret, credit)
                : taskErrorFrame(secret, failed, credit);
        if (f == null) { // no reply was ever sent: any connection will do
            handOffs.track(node.transport().send(header.replyTo().node(), node.replyAddress(header), frame)
                    .exceptionallyCompose(e -> pastCreator(credit, failed, e)));
            return;
        }
        handOffs.track(f.thenCompose(ch -> {
            if (!ch.isActive()) {
                // The replies' connection closed: some may be lost, so the credit must not arrive without them.
                failures.repliesUnconfirmed(header);
                return pastCreator(credit, failed, null);
            }
            return node.transport().send(ch, frame);
        }).exceptionallyCompose(e -> pastCreator(credit, failed, e)));
    }

    /**
     * The reply-to of this hop is the creator of its sub-chain and it is gone (unreachable, or the
     * connection carrying the replies closed: the replies sent there are lost, and logged): sends the
     * kept {@code credit} (or the task's failure) straight to the chain's originator, so that the
     * chain still ends. For a hop whose reply-to is the originator, nothing can be done: fails.
     */
    private CompletableFuture<Void> pastCreator(Credit credit, Throwable failed, Throwable why) {
        if (secret.matches(header.attemptSecret())) {
            return why == null ? CompletableFuture.completedFuture(null) : CompletableFuture.failedFuture(why);
        }
        if (why != null) {
            failures.replyLost(header, Node.unwrap(why));
        }
        Object direct = failed == null ? quietFrame(header.attemptSecret(), credit)
                : taskErrorFrame(header.attemptSecret(), failed, credit);
        return node.transport().send(header.origin(), node.addressOf(header.originator()), direct);
    }

    /** This hop's QUIET frame under secret {@code to}, returning {@code credit}; it names the hop as its replies do. */
    private QuietFrame quietFrame(ChainSecret to, Credit credit) {
        return new QuietFrame(header.chainId(), to, credit, header.branch(), header.hop(), node.name());
    }

    /**
     * The ERROR frame for work started through the context that threw {@code e}: as the service
     * function's failure, unless what it threw is a {@code preturn} that could not reach the
     * originator (then with that retryable code, see {@link #replyUnsent}).
     */
    private ChainErrorFrame taskErrorFrame(ChainSecret to, Throwable e, Credit credit) {
        HopFailure unsentReply = replyUnsent(e, header.serviceFunction());
        if (unsentReply != null) {
            return new ChainErrorFrame(header.chainId(), to, unsentReply.code(), new ChainFailure(
                    unsentReply.exceptionName(), "a task that hop " + header.hop() + " started: "
                    + unsentReply.getMessage(), node.name(), header.hop(), node.pathThrough(header), List.of(),
                    List.of(), List.of()), credit);
        }
        return new ChainErrorFrame(header.chainId(), to, ChainErrorCode.SERVICE_FUNCTION_FAILED, taskFailure(e), credit);
    }

    /** The failure to report for work started through the context that threw {@code e}. */
    private ChainFailure taskFailure(Throwable e) {
        String message = "a task that hop " + header.hop() + " started through ChainContext (startThread, "
                + "startVirtualThread, executor, wrap or track) at '" + node.name() + "' threw " + e;
        if (message.length() > 4096) {
            message = message.substring(0, 4076) + "... (truncated)";
        }
        return new ChainFailure(e.getClass().getName(), message, node.name(), header.hop(), node.pathThrough(header),
                FunctionRuntime.stackTrace(e), List.of(), List.of());
    }

    private String chainId() {
        return header.origin() + "#" + header.chainId();
    }
}
