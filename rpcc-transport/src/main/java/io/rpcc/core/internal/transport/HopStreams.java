package io.rpcc.core.internal.transport;

import io.netty.channel.Channel;
import io.netty.util.AttributeKey;
import io.netty.util.concurrent.ScheduledFuture;
import io.rpcc.core.ChainErrorCode;
import io.rpcc.core.ChainStreamException;
import io.rpcc.core.Refusal;
import io.rpcc.core.internal.wire.ChainRequest;
import io.rpcc.core.internal.wire.HopFailure;
import io.rpcc.core.internal.wire.RequestStream;
import io.rpcc.core.internal.wire.StreamFrames;
import io.rpcc.core.spi.EngineSpi;
import java.util.Iterator;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The data streams of a node's hops, per connection (protocol version 8): those its connections
 * bring in ({@link InboundStream}, announced by a REQUEST, fed by STREAM_DATA and STREAM_END, read
 * by a service function) and those it sends ({@link OutboundStream}, registered as their REQUEST is
 * written, pumped within the room the receiver grants).
 *
 * <p>Limits against a hostile sender, each refused with the connection kept open and the node
 * serving its other chains: data or an end for a stream that no REQUEST announced, or that ended
 * ({@link Refusal#STREAM_VIOLATION}, a bad frame of the connection); more data than the room
 * granted (the stream ends, {@link Refusal#STREAM_VIOLATION}); more than
 * {@link WireLimits.StreamLimits#maxStreamsPerConnection} open streams (the new one refused,
 * {@link Refusal#TOO_MANY_STREAMS}); a stream on which neither data nor reads moved for
 * {@link WireLimits.StreamLimits#idleTimeout} (ended, {@link Refusal#STREAM_IDLE}). A stream holds
 * at most {@link WireLimits.StreamLimits#windowBytes} at this node, whatever its sender does, and all
 * streams together at most {@link WireLimits.StreamLimits#bufferBytes}: every byte of room a stream is
 * given (its initial window included) is taken from that node-wide budget until its reader has read
 * it or the stream has ended; a stream whose initial window does not fit is refused
 * ({@link Refusal#STREAM_MEMORY}), and a stream gets more room only as far as the budget allows. The
 * streams from one remote address take at most {@link WireLimits.StreamLimits#bytesPerAddress} of it
 * ({@link StreamBudget}), so one peer cannot hold the whole budget and shut the others out.
 */
@EngineSpi
public final class HopStreams {
    private static final Logger log = LoggerFactory.getLogger(HopStreams.class);
    private static final AttributeKey<Table> TABLE = AttributeKey.valueOf("rpcc.streams");
    /** Ids of streams ended here whose late frames are dropped quietly, per connection. */
    private static final int REMEMBERED_ENDS = 4096;

    private final String nodeName;
    private final WireLimits.StreamLimits limits;
    private final FrameWriter writer;
    private final ConnectionRefusals refusals;
    private final AtomicLong buffered = new AtomicLong();
    private final AtomicLong peakBuffered = new AtomicLong();
    private final AtomicLong opened = new AtomicLong();
    /** Room given to open inbound streams and not yet read back (buffered, or on its way). */
    private final StreamBudget budget;

    HopStreams(String nodeName, WireLimits.StreamLimits limits, FrameWriter writer, ConnectionRefusals refusals) {
        this.nodeName = nodeName;
        this.limits = limits;
        this.writer = writer;
        this.refusals = refusals;
        this.budget = new StreamBudget(limits);
    }

    /** The limits. */
    public WireLimits.StreamLimits limits() {
        return limits;
    }

    /** Bytes of inbound streams buffered at this node now, over all connections. */
    public long bufferedBytes() {
        return buffered.get();
    }

    /** The most bytes of inbound streams buffered at this node at once so far. */
    public long peakBufferedBytes() {
        return peakBuffered.get();
    }

    /**
     * Bytes of the node-wide budget ({@link WireLimits.StreamLimits#bufferBytes}) that inbound streams
     * hold now: buffered here, or room granted to their senders.
     */
    public long reservedBytes() {
        return budget.reserved();
    }

    /** Inbound streams announced to this node so far. */
    public long streamsOpened() {
        return opened.get();
    }


    // ------------------------------------------------------------------ the connection's table

    /** The streams of one connection. Inbound ones are changed on its event loop only. */
    private final class Table {
        final Channel ch;
        final Map<Long, InboundStream> inbound = new ConcurrentHashMap<>();
        final Map<Long, OutboundStream> outbound = new ConcurrentHashMap<>();
        /**
         * Streams this node ended before their sender did (cancelled, refused): their late frames, sent
         * before the sender heard of it, are dropped, not refused. (A stream its sender ended is not here:
         * data after its end is refused.) Guarded by itself.
         */
        private final LinkedHashSet<Long> ended = new LinkedHashSet<>();
        ScheduledFuture<?> sweep;
        /** The budget's share of the connection's remote address, once a stream arrived; on the event loop. */
        StreamBudget.Share share;

        Table(Channel ch) {
            this.ch = ch;
        }

        void rememberEnded(long id) {
            synchronized (ended) {
                ended.add(id);
                if (ended.size() > REMEMBERED_ENDS) {
                    Iterator<Long> oldest = ended.iterator();
                    oldest.next();
                    oldest.remove();
                }
            }
        }

        boolean endedHere(long id) {
            synchronized (ended) {
                return ended.contains(id);
            }
        }
    }

    private Table table(Channel ch) {
        Table t = ch.attr(TABLE).get();
        if (t != null) {
            return t;
        }
        Table fresh = new Table(ch);
        t = ch.attr(TABLE).setIfAbsent(fresh);
        if (t != null) {
            return t;
        }
        ch.closeFuture().addListener(f -> ch.eventLoop().execute(() -> closed(fresh)));
        return fresh;
    }

    private void closed(Table t) {
        if (t.sweep != null) {
            t.sweep.cancel(false);
        }
        for (InboundStream s : List.copyOf(t.inbound.values())) {
            s.fail(new ChainStreamException(ChainStreamException.Reason.CONNECTION_CLOSED, "the connection from "
                    + peer(t.ch) + " that brought stream " + s.id + " closed before the stream's end"), false);
        }
        if (t.share != null) {
            budget.leave(t.share);
        }
        for (OutboundStream s : List.copyOf(t.outbound.values())) {
            s.stop("the connection to " + peer(t.ch) + " closed");
        }
    }

    // ------------------------------------------------------------------ inbound: event loop

    /**
     * {@code request}, read from {@code ch}, with the stream it announces registered on {@code ch}
     * (or refused: too many open); a request without a stream as it is. On {@code ch}'s event loop,
     * before any later frame of the connection.
     */
    ChainRequest announced(Channel ch, ChainRequest request) {
        RequestStream announced = request.stream();
        if (announced == null) {
            return request;
        }
        long id = announced.id();
        Table t = table(ch);
        if (t.share == null) {
            t.share = budget.join(ch);
        }
        String where = "stream " + id + " of hop " + request.header().hop() + " ('" + request.header().serviceFunction()
                + "', chain " + request.header().chainId() + " of '" + request.header().origin() + "')";
        if (t.inbound.containsKey(id)) {
            refusals.refuse(ch, Refusal.STREAM_VIOLATION, "a REQUEST announcing " + where + ", the id of a stream "
                    + "still open on the connection", false);
            InboundStream refused = new InboundStream(t, id, where);
            refused.failed = new ChainStreamException(ChainStreamException.Reason.PROTOCOL_VIOLATION, "the sender announced "
                    + where + " under the id of a stream still open on the connection: the stream was refused");
            return request.withStream(refused);
        }
        InboundStream s = new InboundStream(t, id, where);
        if (t.inbound.size() >= limits.maxStreamsPerConnection()) {
            refusals.refuse(ch, Refusal.TOO_MANY_STREAMS, "a REQUEST announcing " + where + " while "
                    + t.inbound.size() + " streams were open on the connection (maxStreamsPerConnection: "
                    + limits.maxStreamsPerConnection() + ")", false);
            t.rememberEnded(id);
            s.failed = new ChainStreamException(ChainStreamException.Reason.REFUSED, "node '" + nodeName + "' refused "
                    + where + ": " + t.inbound.size() + " streams were open on the connection from " + peer(ch)
                    + ", the most it allows (NodeBuilder.maxStreamsPerConnection, rpcc.streams.max-per-connection: "
                    + limits.maxStreamsPerConnection()
                    + "); send fewer streams at once");
            send(ch, new StreamFrames.Cancel(id, s.failed.getMessage()));
            return request.withStream(s);
        }
        if (budget.reserve(t.share, StreamFrames.INITIAL_WINDOW, StreamFrames.INITIAL_WINDOW) == 0) {
            String why = budget.whyNot(t.share, StreamFrames.INITIAL_WINDOW);
            refusals.refuse(ch, Refusal.STREAM_MEMORY, "a REQUEST announcing " + where + " while " + why, false);
            t.rememberEnded(id);
            s.failed = new ChainStreamException(ChainStreamException.Reason.REFUSED, "node '" + nodeName + "' refused "
                    + where + ": " + why + ", too little for the " + StreamFrames.INITIAL_WINDOW + " bytes a stream "
                    + "starts with; send it again later, or raise that setting there");
            send(ch, new StreamFrames.Cancel(id, s.failed.getMessage()));
            return request.withStream(s);
        }
        s.held = StreamFrames.INITIAL_WINDOW;
        t.inbound.put(id, s);
        opened.incrementAndGet();
        long more = budget.reserve(t.share, limits.windowBytes() - StreamFrames.INITIAL_WINDOW, 1);
        if (more > 0) {
            s.granted += more;
            s.held += more;
            send(ch, new StreamFrames.Credit(id, (int) more));
        }
        if (t.sweep == null) {
            long every = Math.max(10, Math.min(1000, limits.idleTimeout().toMillis() / 4));
            t.sweep = ch.eventLoop().scheduleAtFixedRate(() -> sweep(t), every, every, TimeUnit.MILLISECONDS);
        }
        return request.withStream(s);
    }

    /** A STREAM_DATA frame read from {@code ch}. */
    void onData(Channel ch, StreamFrames.Data d) {
        Table t = table(ch);
        InboundStream s = t.inbound.get(d.stream());
        if (s == null) {
            unknown(t, d.stream(), "STREAM_DATA of " + d.data().length + " bytes");
            return;
        }
        s.arrived(d.data());
    }

    /** A STREAM_END frame read from {@code ch}. */
    void onEnd(Channel ch, StreamFrames.End e) {
        Table t = table(ch);
        InboundStream s = t.inbound.get(e.stream());
        if (s == null) {
            unknown(t, e.stream(), "STREAM_END");
            return;
        }
        s.end(e);
    }

    /** A STREAM_CREDIT frame read from {@code ch}: room for one of this node's streams. */
    void onCredit(Channel ch, StreamFrames.Credit c) {
        Table t = ch.attr(TABLE).get();
        OutboundStream s = t == null ? null : t.outbound.get(c.stream());
        if (s != null) {
            s.granted(c.bytes());
        } // (else: a stream that ended here; its receiver did not know yet)
    }

    /** A STREAM_CANCEL frame read from {@code ch}: the receiver of one of this node's streams wants no more. */
    void onCancel(Channel ch, StreamFrames.Cancel c) {
        Table t = ch.attr(TABLE).get();
        OutboundStream s = t == null ? null : t.outbound.get(c.stream());
        if (s != null) {
            s.stop("its receiver " + peer(ch) + " stopped it: " + c.message());
        }
    }

    private void unknown(Table t, long id, String what) {
        if (t.endedHere(id)) {
            return; // sent before our cancel (or refusal) reached the sender: late, not hostile
        }
        refusals.refuse(t.ch, Refusal.STREAM_VIOLATION, what + " for stream " + id + ", which is not open on the "
                + "connection (no REQUEST announced it, or its sender had ended it); dropped", false);
    }

    private void sweep(Table t) {
        long now = System.nanoTime();
        long idle = limits.idleTimeout().toNanos();
        for (InboundStream s : List.copyOf(t.inbound.values())) {
            if (now - s.lastActivityNanos > idle) {
                refusals.refuse(t.ch, Refusal.STREAM_IDLE, s.where + ": neither data nor reads for "
                        + limits.idleTimeout().toMillis() + " ms", false);
                s.fail(new ChainStreamException(ChainStreamException.Reason.IDLE_TIMEOUT, s.where
                        + " moved neither way for " + limits.idleTimeout().toMillis() + " ms (no data from "
                        + peer(t.ch) + ", no read by the service function) and was ended at node '" + nodeName
                        + "' (NodeBuilder.streamIdleTimeout)"), true);
            }
        }
        if (t.inbound.isEmpty() && t.sweep != null) {
            t.sweep.cancel(false);
            t.sweep = null;
        }
    }

    private void send(Channel ch, Object frame) {
        writer.send(ch, frame).whenComplete((v, e) -> {
            if (e != null) {
                log.debug("node '{}': cannot send {} to {}: {}", nodeName, frame.getClass().getSimpleName(), peer(ch),
                        e.toString());
            }
        });
    }

    private static String peer(Channel ch) {
        io.rpcc.core.internal.wire.Hello h = ConnectionAttributes.peer(ch);
        return h != null ? "'" + h.node() + "' (" + ch.remoteAddress() + ")" : String.valueOf(ch.remoteAddress());
    }

    /**
     * A stream that a connection brings in: the bytes arrive on the event loop, a worker thread reads
     * them. Holds at most the window: the sender never has more room than the window less what is
     * buffered here.
     */
    final class InboundStream extends java.io.InputStream implements RequestStream {
        private final Table t;
        /** The budget's share of the address the stream came from. */
        private final StreamBudget.Share share;
        private final long id;
        private final String where;
        private final java.util.ArrayDeque<byte[]> chunks = new java.util.ArrayDeque<>();
        private int headOffset;
        /** Room granted so far (the initial window included), bytes received, bytes read. */
        private long granted = StreamFrames.INITIAL_WINDOW;
        private long received;
        private long read;
        private long bufferedHere;
        /**
         * The bytes of the node-wide budget this stream holds: {@code granted - read} while it is open,
         * what is still buffered once it is complete, 0 once it failed or was refused.
         */
        private long held;
        private boolean complete;
        private ChainStreamException failed;
        private boolean discarded;
        /** Ended here by {@link #fail} (the first call tells the sender). */
        private boolean endedHere;
        volatile long lastActivityNanos = System.nanoTime();

        InboundStream(Table t, long id, String where) {
            this.t = t;
            this.share = t.share;
            this.id = id;
            this.where = where;
        }

        @Override
        public long id() {
            return id;
        }

        @Override
        public java.io.InputStream input() {
            return this;
        }

        /** On the event loop. */
        void arrived(byte[] data) {
            synchronized (this) {
                if (complete || failed != null) {
                    return; // (removed from the table then; not reached)
                }
                if (received + data.length > granted) {
                    long over = received + data.length - granted;
                    failed = new ChainStreamException(ChainStreamException.Reason.PROTOCOL_VIOLATION, "the sender of "
                            + where + " sent " + over + " bytes more than the " + granted + " it was given room for");
                } else {
                    received += data.length;
                    if (data.length > 0) {
                        chunks.addLast(data);
                        bufferedHere += data.length;
                        long now = buffered.addAndGet(data.length);
                        peakBuffered.accumulateAndGet(now, Math::max);
                    }
                    lastActivityNanos = System.nanoTime();
                    notifyAll();
                    return;
                }
            }
            refusals.refuse(t.ch, Refusal.STREAM_VIOLATION, failed.getMessage(), false);
            fail(failed, true);
        }

        /** On the event loop. */
        void end(StreamFrames.End e) {
            ChainStreamException abort = null;
            synchronized (this) {
                if (e.aborted()) {
                    abort = new ChainStreamException(ChainStreamException.Reason.SENDER_ABORTED, where + " was ended by "
                            + "its sender " + peer(t.ch) + " after " + received + " bytes: " + e.abortMessage());
                } else if (e.total() != received) {
                    abort = new ChainStreamException(ChainStreamException.Reason.PROTOCOL_VIOLATION, "the sender of "
                            + where + " ended it at " + e.total() + " bytes, but " + received + " arrived");
                } else {
                    complete = true;
                    release(held - bufferedHere); // room granted that no data will use
                    lastActivityNanos = System.nanoTime();
                    notifyAll();
                }
            }
            if (abort != null) {
                if (abort.reason() == ChainStreamException.Reason.PROTOCOL_VIOLATION) {
                    refusals.refuse(t.ch, Refusal.STREAM_VIOLATION, abort.getMessage(), false);
                }
                fail(abort, false);
            } else {
                t.inbound.remove(id, this); // over: what is buffered stays for the reader
            }
        }

        /**
         * Ends the stream with {@code failure}: the reader gets it (once what was buffered is dropped),
         * the sender is told to stop if {@code tellSender}. Any thread.
         */
        void fail(ChainStreamException failure, boolean tellSender) {
            boolean first;
            synchronized (this) {
                first = !endedHere;
                endedHere = true;
                if (failed == null) { // (a complete stream's unread data is dropped too)
                    failed = failure;
                }
                dropBuffered();
                notifyAll();
                if (first && tellSender) { // before it leaves the table: its data on the way is late, not unannounced
                    t.rememberEnded(id);
                }
            }
            t.inbound.remove(id, this);
            if (first && tellSender) {
                send(t.ch, new StreamFrames.Cancel(id, failure.getMessage()));
            }
        }

        private void dropBuffered() {
            if (bufferedHere > 0) {
                buffered.addAndGet(-bufferedHere);
                bufferedHere = 0;
            }
            chunks.clear();
            release(held);
        }

        /** Gives {@code n} of the bytes this stream holds back to the budget and its address's share. Under its lock. */
        private void release(long n) {
            if (n > 0) {
                held -= n;
                budget.release(share, n);
            }
        }

        /**
         * More room for the sender, taken from the budget within its address's share, once what the
         * stream holds is a credit step (a quarter of the window, at least a chunk) under its window; 0
         * if it needs none or the budget or share has none free now (then a later read, or a read
         * waiting for data, tries again).
         * Under this stream's lock; the caller sends the credit.
         */
        private long moreRoom() {
            if (complete || failed != null) {
                return 0;
            }
            long want = limits.windowBytes() - held;
            if (want < Math.max(limits.chunkBytes(), limits.windowBytes() / 4)) {
                return 0;
            }
            long take = budget.reserve(share, want, Math.min(want, limits.chunkBytes()));
            held += take;
            granted += take;
            return take;
        }

        @Override
        public void discard(String why) {
            boolean open;
            synchronized (this) {
                open = !complete && failed == null;
                if (!open && discarded) {
                    return;
                }
                discarded = true;
            }
            fail(new ChainStreamException(ChainStreamException.Reason.CLOSED, where + " was dropped at node '"
                    + nodeName + "': " + why), open);
        }

        @Override
        public int read() throws java.io.IOException {
            byte[] one = new byte[1];
            int n = read(one, 0, 1);
            return n < 0 ? -1 : one[0] & 0xff;
        }

        @Override
        public int read(byte[] b, int off, int len) throws java.io.IOException {
            java.util.Objects.checkFromIndexSize(off, len, b.length);
            if (len == 0) {
                return 0;
            }
            long credit;
            int n;
            while (true) { // wait for data; a stream that ran out of room asks the budget for more meanwhile
                long room;
                synchronized (this) {
                    if (!chunks.isEmpty() || complete || failed != null) {
                        break;
                    }
                    try {
                        wait(100);
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                        throw new java.io.InterruptedIOException("interrupted while reading " + where);
                    }
                    room = chunks.isEmpty() ? moreRoom() : 0;
                }
                if (room > 0) {
                    send(t.ch, new StreamFrames.Credit(id, (int) room));
                }
            }
            synchronized (this) {
                if (failed != null) {
                    throw new ChainStreamException(failed.reason(), failed.getMessage());
                }
                if (chunks.isEmpty()) {
                    return -1; // complete
                }
                byte[] head = chunks.peekFirst();
                n = Math.min(len, head.length - headOffset);
                System.arraycopy(head, headOffset, b, off, n);
                headOffset += n;
                if (headOffset == head.length) {
                    chunks.removeFirst();
                    headOffset = 0;
                }
                read += n;
                bufferedHere -= n;
                buffered.addAndGet(-n);
                release(n);
                lastActivityNanos = System.nanoTime();
                credit = moreRoom();
            }
            if (credit > 0) {
                send(t.ch, new StreamFrames.Credit(id, credit));
            }
            return n;
        }

        @Override
        public synchronized int available() {
            return (int) Math.min(Integer.MAX_VALUE, bufferedHere);
        }

        @Override
        public void close() {
            discard("its reader closed it");
        }
    }

    // ------------------------------------------------------------------ outbound

    /**
     * Registers {@code s} on {@code ch} before its REQUEST is written (so that room granted at once
     * finds it); {@code false} if it was sent before (a stream is read once: a request that carries
     * one is not sent again).
     */
    boolean opening(Channel ch, OutboundStream s) {
        if (!s.claim(ch)) {
            return false;
        }
        table(ch).outbound.put(s.id(), s);
        return true;
    }

    /** {@code s}'s REQUEST did not leave on {@code ch}: it may go elsewhere (a failover). */
    void notSent(Channel ch, OutboundStream s) {
        Table t = ch.attr(TABLE).get();
        if (t != null && t.outbound.remove(s.id(), s) && t.outbound.isEmpty()) {
            GracefulClose.streamsEnded(ch);
        }
        s.unclaim();
    }

    /**
     * Whether this node is sending a stream on {@code ch} (its REQUEST handed to the connection, its
     * end not yet written): a GOAWAY that {@code ch}'s peer sent is answered once none is left
     * ({@link GracefulClose}).
     */
    static boolean sendingOn(Channel ch) {
        Table t = ch.attr(TABLE).get();
        return t != null && !t.outbound.isEmpty();
    }

    /** {@code s}'s REQUEST was written to {@code ch}: its bytes follow, on a thread of their own. */
    void pump(Channel ch, OutboundStream s) {
        Thread.ofVirtual().name("rpcc-stream-" + nodeName + "-" + s.id()).start(() -> {
            try {
                s.pump(ch, this);
            } finally {
                Table t = ch.attr(TABLE).get();
                if (t != null && t.outbound.remove(s.id(), s) && t.outbound.isEmpty()) {
                    GracefulClose.streamsEnded(ch);
                }
            }
        });
    }

    /** Sends one frame of an outbound stream on {@code ch} (after waiting for the connection to take it). */
    CompletableFuture<Void> sendFrame(Channel ch, Object frame) {
        return writer.send(ch, frame);
    }

    /** Waits for {@code ch} to take more (Netty's back-pressure). */
    boolean awaitWritable(Channel ch, java.time.Duration timeout, java.util.function.BooleanSupplier giveUp)
            throws InterruptedException {
        return writer.awaitWritable(ch, timeout, giveUp);
    }

    /** How many bytes this node puts in one STREAM_DATA frame to {@code ch}'s peer (its frame limit respected). */
    int chunkFor(Channel ch) {
        io.rpcc.core.internal.wire.Hello peer = ConnectionAttributes.peer(ch);
        int frameLimit = peer == null ? Integer.MAX_VALUE : peer.maxFrameSize();
        return Math.max(1, Math.min(limits.chunkBytes(), frameLimit - 32));
    }

    /** A failure for a request whose stream was sent before. */
    static HopFailure sentBefore(ChainRequest r) {
        return new HopFailure(ChainErrorCode.INTERNAL, "the data stream of hop " + r.header().hop() + " ('"
                + r.header().serviceFunction() + "') was sent before: a stream is read once, so its request cannot be "
                + "sent again");
    }
}
