package io.rpcc.core.internal.wire;

import com.esotericsoftware.kryo.Kryo;
import com.esotericsoftware.kryo.io.Input;
import com.esotericsoftware.kryo.io.Output;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.UnpooledByteBufAllocator;
import io.rpcc.core.BranchId;
import io.rpcc.core.ChainErrorCode;
import io.rpcc.core.ChainFailure;
import io.rpcc.core.ChainState;
import io.rpcc.core.ChainingFunctionCompileException.Diagnostic;
import io.rpcc.core.ChainingFunctionSource;
import io.rpcc.core.ConsoleLine;
import io.rpcc.core.FailureFields;
import io.rpcc.core.FunctionLanguage;
import io.rpcc.core.HopTiming;
import io.rpcc.core.internal.wire.Credit;
import io.rpcc.core.Metadata;
import io.rpcc.core.NextHop;
import io.rpcc.core.spi.EngineSpi;
import java.math.BigInteger;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;

/**
 * Encodes and decodes rpcc frames (see {@link FrameType} for the layout). rpcc's own structures are
 * written field by field; user values (parameters, state values, results) go through Kryo with
 * registration required.
 */
@EngineSpi
public final class WireFormat {
    /** Bytes before the payload: length, version, type. */
    public static final int HEADER_BYTES = 6;
    /** For {@link #encode(Object, int)}: heap buffers, as tools and tests hold frames without a channel. */
    private static final ByteBufAllocator UNPOOLED = new UnpooledByteBufAllocator(false, true);

    private final Serialization serialization;

    /** A wire format for a node with {@code serialization}. */
    public WireFormat(Serialization serialization) {
        this.serialization = serialization;
    }

    // ---------------------------------------------------------------- encoding

    /**
     * How many bytes {@code state} takes in a REQUEST frame: a byte array's entry is counted from its
     * length (within the few bytes of its class and length), every other value by writing it
     * through a discarding stream (no copy of it is kept).
     *
     * @throws HopFailure if a value cannot be serialized
     */
    public long stateBytes(ChainState state) {
        return stateSize(state, Long.MAX_VALUE).bytes();
    }

    /**
     * The size of a chain state as {@link #stateSize} counted it.
     *
     * @param bytes the encoded size, or, if not {@code exact}, where the counting stopped (over its limit)
     * @param exact whether {@code bytes} is the whole size
     */
    public record StateSize(long bytes, boolean exact) {
    }

    /**
     * As {@link #stateBytes(ChainState)}, but the counting stops as soon as it passes {@code limit}:
     * the exact size if it is at most {@code limit} or if the counting reached the state's end anyway
     * (a byte array counts at once, from its length), else a count over {@code limit} (a lower bound of
     * the size), reached without writing the rest of the state. For a caller that only needs to know whether the state is larger
     * than {@code limit} (the adaptive state fall-back's break-even size).
     *
     * @throws HopFailure if a value written before the counting stopped cannot be serialized
     */
    public StateSize stateSize(ChainState state, long limit) {
        if (state.size() == 0) {
            return new StateSize(1, true);
        }
        return serialization.withKryo(kryo -> {
            CountingStream counted = new CountingStream(limit);
            Output out = new Output(counted, 8192);
            long arrays = 0;
            int left = state.size();
            try {
                out.writeVarInt(state.size(), true);
                for (Map.Entry<String, Object> e : state.asMap().entrySet()) {
                    left--;
                    out.writeString(e.getKey());
                    if (e.getValue() instanceof byte[] b) {
                        arrays += 2 + 5 + b.length; // its class, its length, its bytes
                    } else {
                        counted.arrays = arrays;
                        kryo.writeClassAndObject(out, e.getValue());
                    }
                    if (out.total() + arrays > limit && left > 0) {
                        return new StateSize(out.total() + arrays, false);
                    }
                }
                out.flush();
                return new StateSize(out.total() + arrays, true);
            } catch (RuntimeException | StackOverflowError e) {
                if (CountingStream.stoppedBy(e)) {
                    return new StateSize(counted.count + arrays, false);
                }
                throw serialization.encodeFailure(e, "the chain state", Integer.MAX_VALUE);
            }
        });
    }

    /**
     * Discards what is written to it, counting it; throws {@link #STOP} once the count and
     * {@link #arrays} pass the limit (the serializer in progress is abandoned there).
     */
    private static final class CountingStream extends java.io.OutputStream {
        /** Thrown to stop counting; no stack trace (it is never reported). */
        static final RuntimeException STOP = new RuntimeException("state larger than the limit", null, false, false) {
        };
        final long limit;
        long count;
        long arrays; // what the state's byte arrays before this value add

        CountingStream(long limit) {
            this.limit = limit;
        }

        @Override
        public void write(int b) {
            add(1);
        }

        @Override
        public void write(byte[] b, int off, int len) {
            add(len);
        }

        private void add(long n) {
            count += n;
            if (count + arrays > limit) {
                throw STOP;
            }
        }

        /** Whether {@code e} (possibly as a serializer wrapped it) is {@link #STOP}. */
        static boolean stoppedBy(Throwable e) {
            for (Throwable t = e; t != null; t = t.getCause()) {
                if (t == STOP) {
                    return true;
                }
                if (t.getCause() == t) {
                    return false;
                }
            }
            return false;
        }
    }

    /**
     * Encodes {@code message} (a {@link Hello}, {@link ChainRequest}, {@link ChainResultFrame},
     * {@link ChainErrorFrame}, {@link ReplyFrame}, {@link QuietFrame} or {@link CancelFrame}) into a
     * complete frame.
     *
     * @throws HopFailure if a value cannot be serialized or the frame exceeds {@code maxFrameSize}
     */
    public ByteBuf encode(Object message, int maxFrameSize) {
        return encode(message, maxFrameSize, UNPOOLED);
    }

    /**
     * {@link #encode(Object, int)} into a buffer of {@code alloc} (a channel's), which the caller owns:
     * it is written out, or released.
     */
    public ByteBuf encode(Object message, int maxFrameSize, ByteBufAllocator alloc) {
        return serialization.withKryo(kryo -> {
            FrameOutput frame = FrameOutput.obtain(alloc, maxFrameSize);
            Output out = frame.out;
            try {
                out.writeInt(0);
                out.writeByte(message instanceof Hello ? FrameType.HELLO_VERSION : FrameType.PROTOCOL_VERSION);
                switch (message) {
                    case Hello h -> {
                        out.writeByte(FrameType.HELLO.wire());
                        out.writeVarInt(h.versions().min(), true);
                        out.writeVarInt(h.versions().max(), true);
                        out.writeString(h.node());
                        out.writeString(h.host());
                        out.writeVarInt(h.port(), true);
                        out.writeVarInt(h.maxFrameSize(), true);
                    }
                    case ChainRequest r -> {
                        out.writeByte(FrameType.REQUEST.wire());
                        writeHeader(kryo, out, r.header());
                        out.writeVarLong(r.stream() == null ? 0 : r.stream().id(), true); // field 22
                        writeTx(out, r.header().tx()); // field 23
                        kryo.writeClassAndObject(out, r.params());
                        writeState(kryo, out, r.state());
                    }
                    case ChainResultFrame r -> {
                        out.writeByte(FrameType.RESULT.wire());
                        writeChain(out, r.chain());
                        writeStrings(out, r.path());
                        writeConsole(out, r.console());
                        writeTimings(out, r.timings());
                        writeCredit(out, r.credit());
                        kryo.writeClassAndObject(out, r.value());
                    }
                    case ChainErrorFrame e -> {
                        out.writeByte(FrameType.ERROR.wire());
                        writeChain(out, e.chainId(), e.secret());
                        out.writeVarInt(e.code().number(), true);
                        writeFailure(out, e.failure());
                        writeCredit(out, e.credit());
                    }
                    case ReplyFrame r -> {
                        out.writeByte(FrameType.REPLY.wire());
                        writeChain(out, r.chain());
                        writeBranch(out, r.branch());
                        out.writeVarInt(r.hop(), true);
                        out.writeString(r.host());
                        out.writeVarLong(r.seq() + 1, true); // UNKEYED (-1) is 0
                        kryo.writeClassAndObject(out, r.value());
                    }
                    case QuietFrame q -> {
                        out.writeByte(FrameType.QUIET.wire());
                        writeChain(out, q.chainId(), q.secret());
                        writeCredit(out, q.credit());
                        writeBranch(out, q.branch());
                        out.writeVarInt(q.hop(), true);
                        out.writeString(q.host());
                    }
                    case WindowUpdateFrame w -> {
                        out.writeByte(FrameType.WINDOW_UPDATE.wire());
                        writeChain(out, w.chain());
                        out.writeVarInt(w.hop(), true);
                        out.writeString(w.host());
                        out.writeByte(w.grant() ? 0 : 1);
                        out.writeVarInt(w.replies(), true);
                        out.writeVarLong(w.bytes(), true);
                        out.writeVarLong(w.wantBytes(), true);
                    }
                    case HeartbeatFrame f -> writeHeartbeatFrame(out, f);
                    case PingFrame p -> {
                        out.writeByte(FrameType.PING.wire());
                        out.writeByte(p.ack() ? 1 : 0);
                        out.writeLong(p.payload());
                    }
                    case GoAwayFrame g -> {
                        out.writeByte(FrameType.GOAWAY.wire());
                        out.writeByte(g.reason());
                    }
                    case StreamFrames.Data d -> {
                        out.writeByte(FrameType.STREAM_DATA.wire());
                        out.writeVarLong(d.stream(), true);
                        out.writeVarInt(d.data().length, true);
                        out.writeBytes(d.data());
                    }
                    case StreamFrames.End e -> {
                        out.writeByte(FrameType.STREAM_END.wire());
                        out.writeVarLong(e.stream(), true);
                        out.writeVarLong(e.total(), true);
                        out.writeString(e.abortMessage());
                    }
                    case StreamFrames.Credit c -> {
                        out.writeByte(FrameType.STREAM_CREDIT.wire());
                        out.writeVarLong(c.stream(), true);
                        out.writeVarLong(c.bytes(), true);
                    }
                    case StreamFrames.Cancel c -> {
                        out.writeByte(FrameType.STREAM_CANCEL.wire());
                        out.writeVarLong(c.stream(), true);
                        out.writeString(c.message());
                    }
                    case TxFrames.Vote v -> {
                        out.writeByte(FrameType.VOTE.wire());
                        writeChain(out, v.chainId(), v.secret());
                        out.writeVarInt(v.attempt(), true);
                        writeCredit(out, v.credit());
                        writeAddress(out, v.voter());
                        out.writeVarInt(v.hop(), true);
                        out.writeByte(v.yes() ? 1 : 0);
                        out.writeString(reason(v.why()));
                        out.writeVarLong(v.clock(), true);
                        out.writeVarLong(v.heldReplies(), true);
                    }
                    case TxFrames.Decide d -> {
                        out.writeByte(FrameType.DECIDE.wire());
                        writeChain(out, d.chainId(), d.secret());
                        out.writeVarInt(d.attempt(), true);
                        out.writeString(d.origin());
                        out.writeByte(d.commit() ? 1 : 0);
                        out.writeString(reason(d.why()));
                        out.writeByte(d.fromPeer() ? 1 : 0);
                    }
                    case TxFrames.DecideAck a -> {
                        out.writeByte(FrameType.DECIDE_ACK.wire());
                        writeChain(out, a.chainId(), a.secret());
                        out.writeVarInt(a.attempt(), true);
                        out.writeString(a.node());
                        out.writeVarLong(a.clock(), true);
                        out.writeVarLong(a.released(), true);
                    }
                    case TxFrames.Query q -> {
                        out.writeByte(FrameType.QUERY.wire());
                        writeChain(out, q.chainId(), q.secret());
                        out.writeVarInt(q.attempt(), true);
                        out.writeString(q.origin());
                        out.writeString(q.node());
                    }
                    case TxFrames.Wound w -> {
                        out.writeByte(FrameType.WOUND.wire());
                        writeChain(out, w.chainId(), w.secret());
                        out.writeVarInt(w.attempt(), true);
                        out.writeString(w.node());
                        out.writeString(reason(w.by()));
                    }
                    case CancelFrame c -> {
                        out.writeByte(FrameType.CANCEL.wire());
                        writeChain(out, c.chainId(), c.secret());
                        out.writeString(c.origin());
                        writeBudget(out, c.budgetNanos());
                    }
                    default -> throw new IllegalArgumentException("not an rpcc message: " + message.getClass());
                }
                return frame.finish();
            } catch (HopFailure e) {
                frame.abandon();
                throw e;
            } catch (RuntimeException | StackOverflowError e) {
                frame.abandon();
                throw serialization.encodeFailure(e, describe(message), maxFrameSize);
            }
        });
    }

    private static String describe(Object message) {
        return switch (message) {
            case ChainRequest r -> "the parameters or state for service function '" + r.header().serviceFunction() + "'";
            case ChainResultFrame r -> "the chain's result";
            case ReplyFrame r -> "a partial reply";
            default -> "a " + message.getClass().getSimpleName();
        };
    }

    /** Header field 23 (version 9): {@code flags:int8 [order:varlong origin:int64]}; flags 0: not atomic. */
    private static final int TX_ATOMIC = 1;
    /** Header field 23 flag: the transaction is its originator's primary. */
    private static final int TX_PRIMARY = 2;

    private static void writeTx(Output out, TxStamp tx) {
        if (tx == null) {
            out.writeByte(0);
            return;
        }
        out.writeByte(TX_ATOMIC | (tx.primary() ? TX_PRIMARY : 0));
        out.writeVarLong(tx.order(), true);
        out.writeLong(tx.origin());
    }

    private static TxStamp readTx(Input in) {
        int flags = in.readByte();
        if (flags == 0) {
            return null;
        }
        if ((flags & ~(TX_ATOMIC | TX_PRIMARY)) != 0 || (flags & TX_ATOMIC) == 0) {
            throw new HopFailure(ChainErrorCode.MALFORMED_FRAME, "unknown transaction flags " + flags);
        }
        long order = in.readVarLong(true);
        if (order < 0) {
            throw new HopFailure(ChainErrorCode.MALFORMED_FRAME, "transaction stamp with order "
                    + Long.toUnsignedString(order) + " (at most 2^63 - 1)");
        }
        return new TxStamp((flags & TX_PRIMARY) != 0, order, in.readLong());
    }

    /** A reason as sent: at most {@link TxFrames#MAX_REASON_CHARS} characters. */
    private static String reason(String why) {
        return why == null || why.length() <= TxFrames.MAX_REASON_CHARS ? why
                : why.substring(0, TxFrames.MAX_REASON_CHARS - 3) + "...";
    }

    private static String readReason(Input in, String type) {
        String why = in.readString();
        if (why != null && why.length() > TxFrames.MAX_REASON_CHARS) {
            throw new HopFailure(ChainErrorCode.MALFORMED_FRAME, type + " frame with a reason of " + why.length()
                    + " characters (at most " + TxFrames.MAX_REASON_CHARS + ")");
        }
        return why;
    }

    private static int readTxAttempt(Input in, String type) {
        int attempt = in.readVarInt(true);
        if (attempt < 1 || attempt > ChainHeader.MAX_ATTEMPTS) {
            throw new HopFailure(ChainErrorCode.MALFORMED_FRAME, type + " frame for attempt "
                    + Integer.toUnsignedString(attempt) + " (1 to " + ChainHeader.MAX_ATTEMPTS + ")");
        }
        return attempt;
    }

    private static long readCount(Input in, String type, String what) {
        long n = in.readVarLong(true);
        if (n < 0) {
            throw new HopFailure(ChainErrorCode.MALFORMED_FRAME, type + " frame with " + what + " "
                    + Long.toUnsignedString(n) + " (at most 2^63 - 1)");
        }
        return n;
    }

    private static String requireName(String name, String type, String what) {
        if (name == null || name.isEmpty()) {
            throw new HopFailure(ChainErrorCode.MALFORMED_FRAME, type + " frame without " + what);
        }
        return name;
    }

    private static boolean readFlag(Input in, String type, String what) {
        int b = in.readByte();
        if (b != 0 && b != 1) {
            throw new HopFailure(ChainErrorCode.MALFORMED_FRAME, type + " frame with " + what + " byte " + b);
        }
        return b == 1;
    }

    private static TxFrames.Vote readVote(Input in) {
        String t = "VOTE";
        long chainId = in.readVarLong(true);
        ChainSecret secret = readSecret(in);
        int attempt = readTxAttempt(in, t);
        Credit credit = readCredit(in);
        if (credit.isZero() || credit.exceedsOne()) {
            throw new HopFailure(ChainErrorCode.MALFORMED_FRAME, "VOTE frame with credit " + credit);
        }
        NodeAddress voter = readAddress(in);
        requireName(voter.node(), t, "a voter");
        requireName(voter.host(), t, "the voter's host");
        if (voter.port() < 0 || voter.port() > 65535) {
            throw new HopFailure(ChainErrorCode.MALFORMED_FRAME, "VOTE frame with voter port " + voter.port());
        }
        int hop = in.readVarInt(true);
        if (hop < 1) {
            throw new HopFailure(ChainErrorCode.MALFORMED_FRAME, "VOTE frame for hop " + Integer.toUnsignedString(hop));
        }
        boolean yes = readFlag(in, t, "vote");
        String why = readReason(in, t);
        return new TxFrames.Vote(new ChainKey(chainId, secret), attempt, credit, voter, hop,
                new TxFrames.Ballot(yes, why, readCount(in, t, "clock"), readCount(in, t, "held replies")));
    }

    private static TxFrames.Decide readDecide(Input in) {
        String t = "DECIDE";
        long chainId = in.readVarLong(true);
        ChainSecret secret = readSecret(in);
        int attempt = readTxAttempt(in, t);
        String origin = requireName(in.readString(), t, "origin");
        boolean commit = readFlag(in, t, "decision");
        String why = readReason(in, t);
        return new TxFrames.Decide(chainId, secret, origin, attempt, commit, why, readFlag(in, t, "peer answer"));
    }

    private static TxFrames.DecideAck readDecideAck(Input in) {
        String t = "DECIDE_ACK";
        long chainId = in.readVarLong(true);
        ChainSecret secret = readSecret(in);
        int attempt = readTxAttempt(in, t);
        String node = requireName(in.readString(), t, "node");
        return new TxFrames.DecideAck(chainId, secret, attempt, node, readCount(in, t, "clock"),
                readCount(in, t, "released replies"));
    }

    private static TxFrames.Query readQuery(Input in) {
        String t = "QUERY";
        long chainId = in.readVarLong(true);
        ChainSecret secret = readSecret(in);
        int attempt = readTxAttempt(in, t);
        String origin = requireName(in.readString(), t, "origin");
        return new TxFrames.Query(chainId, secret, origin, attempt, requireName(in.readString(), t, "node"));
    }

    private static TxFrames.Wound readWound(Input in) {
        String t = "WOUND";
        long chainId = in.readVarLong(true);
        ChainSecret secret = readSecret(in);
        int attempt = readTxAttempt(in, t);
        String node = requireName(in.readString(), t, "node");
        String by = readReason(in, t);
        return new TxFrames.Wound(chainId, secret, attempt, node, requireName(by, t, "wounding transaction"));
    }

    private static void writeChain(Output out, long chainId, ChainSecret secret) {
        out.writeVarLong(chainId, true);
        out.writeLong(secret.high());
        out.writeLong(secret.low());
    }

    private static void writeChain(Output out, ChainKey chain) {
        writeChain(out, chain.chainId(), chain.secret());
    }

    private static ChainKey readChainKey(Input in) {
        long chainId = in.readVarLong(true);
        return new ChainKey(chainId, readSecret(in));
    }

    private static ChainSecret readSecret(Input in) {
        return new ChainSecret(in.readLong(), in.readLong());
    }

    private static void writeHeader(Kryo kryo, Output out, ChainHeader h) {
        writeChain(out, h.chainId(), h.secret());
        out.writeString(h.origin());
        out.writeString(h.originHost());
        out.writeVarInt(h.originPort(), true);
        out.writeVarInt(h.hop(), true);
        out.writeVarInt(h.maxHops(), true);
        writeStrings(out, h.path());
        writeConsole(out, h.console());
        writeTimings(out, h.timings());
        out.writeString(h.serviceFunction());
        writeFunction(out, h.chainingFunction());
        writeCredit(out, h.credit());
        writeReplyTo(out, h);
        writeMetadata(out, h.metadata());
        writeReturnStack(kryo, out, h.returnStack());
        writeBranch(out, h.branch());
        writeBudget(out, h.budgetNanos());
        writeHeartbeat(out, h.heartbeat());
        out.writeVarInt(h.attempt(), true);
        writeCredential(out, h.credential());
    }

    /**
     * Header field 21 (version 7): {@code present:int8 [deadline:varlong maxHops:varint firstHop:varint
     * firstServer:string firstService:string signature:bytes certificates:varint (bytes)*]}, where
     * bytes is {@code length:varint} and the bytes.
     */
    private static void writeCredential(Output out, ChainCredential c) {
        if (c == null) {
            out.writeByte(0);
            return;
        }
        out.writeByte(1);
        out.writeVarLong(c.deadlineMillis(), true);
        out.writeVarInt(c.maxHops(), true);
        out.writeVarInt(c.first().hop(), true);
        out.writeString(c.first().server());
        out.writeString(c.first().serviceFunction());
        writeBytes(out, c.signature());
        out.writeVarInt(c.certificates().size(), true);
        for (byte[] cert : c.certificates()) {
            writeBytes(out, cert);
        }
    }

    private static void writeBytes(Output out, byte[] b) {
        out.writeVarInt(b.length, true);
        out.writeBytes(b);
    }

    private static ChainCredential readCredential(Input in) {
        int present = in.readByte();
        if (present == 0) {
            return null;
        }
        if (present != 1) {
            throw new HopFailure(ChainErrorCode.MALFORMED_FRAME, "unknown credential tag " + present);
        }
        long deadline = in.readVarLong(true);
        int maxHops = in.readVarInt(true);
        int firstHop = in.readVarInt(true);
        String server = in.readString();
        String service = in.readString();
        byte[] signature = readBytes(in, "signature");
        int count = in.readVarInt(true);
        if (server == null || service == null || deadline < 0 || count < 1 || count > ChainCredential.MAX_CERTIFICATES) {
            throw new HopFailure(ChainErrorCode.MALFORMED_FRAME, "corrupt chain credential");
        }
        List<byte[]> certificates = new ArrayList<>(count);
        for (int i = 0; i < count; i++) {
            certificates.add(readBytes(in, "certificate"));
        }
        return new ChainCredential(deadline, maxHops, new ChainCredential.FirstHop(firstHop, server, service), signature,
                certificates);
    }

    private static byte[] readBytes(Input in, String what) {
        int length = in.readVarInt(true);
        if (length < 0 || length > ChainCredential.MAX_ITEM_BYTES || length > in.limit() - in.position()) {
            throw new HopFailure(ChainErrorCode.MALFORMED_FRAME, "chain credential " + what + " of "
                    + Integer.toUnsignedString(length) + " bytes");
        }
        return in.readBytes(length);
    }

    /** Reply-to tag: replies go to the originator, whose address the header already holds. */
    private static final int REPLY_TO_ORIGINATOR = 0;
    /** Reply-to tag: replies go to the address that follows. */
    private static final int REPLY_TO_ADDRESS = 1;
    /** Return point flag: composed, the point's chaining function and state follow (else parked at its node). */
    private static final int RETURN_POINT_COMPOSED = 1;
    /** Return point flag: the sub-chain's replies go straight to the originator (else to the point's node). */
    private static final int RETURN_POINT_REPLIES_TO_ORIGINATOR = 2;
    /** Return point flag: a split's merge point, its number of branches follows (never with the others but 2). */
    private static final int RETURN_POINT_MERGE = 4;
    /** Metadata value tag: text. */
    private static final int METADATA_TEXT = 0;
    /** Metadata value tag: bytes. */
    private static final int METADATA_BYTES = 1;

    private static void writeReplyTo(Output out, ChainHeader h) {
        if (h.replyTo().equals(h.originator())) {
            out.writeByte(REPLY_TO_ORIGINATOR);
        } else {
            out.writeByte(REPLY_TO_ADDRESS);
            writeAddress(out, h.replyTo());
        }
    }

    private static void writeAddress(Output out, NodeAddress a) {
        out.writeString(a.node());
        out.writeString(a.host());
        out.writeVarInt(a.port(), true);
    }

    private static void writeMetadata(Output out, Metadata m) {
        out.writeVarInt(m.size(), true);
        for (String key : m.keys()) {
            out.writeString(key);
            if (m.isBytes(key)) {
                byte[] b = m.getBytes(key);
                out.writeByte(METADATA_BYTES);
                out.writeVarInt(b.length, true);
                out.writeBytes(b);
            } else {
                out.writeByte(METADATA_TEXT);
                out.writeString(m.get(key));
            }
        }
    }

    private static void writeReturnStack(Kryo kryo, Output out, List<ReturnPoint> stack) {
        out.writeVarInt(stack.size(), true);
        for (ReturnPoint p : stack) {
            writeAddress(out, p.node());
            out.writeVarLong(p.continuation(), true);
            out.writeByte((p.composed() ? RETURN_POINT_COMPOSED : 0)
                    | (p.repliesToCreator() ? 0 : RETURN_POINT_REPLIES_TO_ORIGINATOR)
                    | (p.isMerge() ? RETURN_POINT_MERGE : 0));
            if (p.composed()) {
                writeFunction(out, p.chainingFunction());
                writeState(kryo, out, p.state());
            }
            if (p.isMerge()) {
                out.writeVarInt(p.branches(), true);
            } else {
                writeCredential(out, p.creatorCredential());
            }
        }
    }

    private static void writeBranch(Output out, BranchId b) {
        out.writeVarInt(b.depth(), true);
        if (b.isRoot()) {
            return; // (the common case: no list of indexes to make)
        }
        for (int i : b.indexes()) {
            out.writeVarInt(i, true);
        }
    }

    /** Header field 20: which sending of the chain by its originator this is (1 to {@link ChainHeader#MAX_ATTEMPTS}). */
    private static int readAttempt(Input in) {
        int attempt = in.readVarInt(true);
        if (attempt < 1 || attempt > ChainHeader.MAX_ATTEMPTS) {
            throw new HopFailure(ChainErrorCode.MALFORMED_FRAME, "attempt " + Integer.toUnsignedString(attempt)
                    + " is not between 1 and " + ChainHeader.MAX_ATTEMPTS);
        }
        return attempt;
    }

    private static void writeBudget(Output out, long budgetNanos) {
        if (budgetNanos == ChainHeader.NO_DEADLINE) {
            out.writeByte(0);
        } else {
            out.writeByte(1);
            out.writeVarLong(budgetNanos, false);
        }
    }

    /** Header field 19: {@code present:int8 [interval:varlong remaining:zigzag-varlong]}. */
    private static void writeHeartbeat(Output out, HeartbeatBudget hb) {
        if (!hb.isOn()) {
            out.writeByte(0);
        } else {
            out.writeByte(1);
            out.writeVarLong(hb.intervalNanos(), true);
            out.writeVarLong(hb.remainingNanos(), false);
        }
    }

    private static HeartbeatBudget readHeartbeat(Input in) {
        return switch (in.readByte()) {
            case 0 -> HeartbeatBudget.NONE;
            case 1 -> {
                long interval = in.readVarLong(true);
                if (interval <= 0) {
                    throw new HopFailure(ChainErrorCode.MALFORMED_FRAME, "heartbeat interval " + interval + " is not positive");
                }
                yield new HeartbeatBudget(interval, in.readVarLong(false));
            }
            default -> throw new HopFailure(ChainErrorCode.MALFORMED_FRAME, "unknown heartbeat tag");
        };
    }

    private static void writeHeartbeatFrame(Output out, HeartbeatFrame f) {
        out.writeByte(FrameType.HEARTBEAT.wire());
        writeChain(out, f.chainId(), f.secret());
        out.writeVarInt(f.hop(), true);
        out.writeString(f.host());
        out.writeVarInt(f.branch().depth(), true);
        for (int i = 0; i < f.branch().depth(); i++) {
            out.writeVarInt(f.branch().indexes().get(i), true);
            out.writeVarInt(f.siblings().get(i), true);
        }
        out.writeByte(f.owesReplies() ? 1 : 0);
    }

    private static PingFrame readPing(Input in) {
        byte ack = in.readByte();
        if (ack != 0 && ack != 1) {
            throw new HopFailure(ChainErrorCode.MALFORMED_FRAME, "PING frame with ack " + ack + " (0 or 1)");
        }
        return new PingFrame(ack == 1, in.readLong());
    }

    private static GoAwayFrame readGoAway(Input in) {
        byte reason = in.readByte();
        if (reason != GoAwayFrame.IDLE) {
            throw new HopFailure(ChainErrorCode.MALFORMED_FRAME, "GOAWAY frame with reason " + reason + " (0: idle)");
        }
        return GoAwayFrame.IDLE_CONNECTION;
    }

    private static HeartbeatFrame readHeartbeatFrame(Input in) {
        long chainId = in.readVarLong(true);
        ChainSecret secret = readSecret(in);
        int hop = in.readVarInt(true);
        String host = in.readString();
        int depth = count(in);
        if (host == null || depth > BranchId.MAX_DEPTH) {
            throw new HopFailure(ChainErrorCode.MALFORMED_FRAME, "HEARTBEAT frame without host or " + depth
                    + " levels deep (at most " + BranchId.MAX_DEPTH + ")");
        }
        int[] indexes = new int[depth];
        List<Integer> siblings = new ArrayList<>(depth);
        for (int i = 0; i < depth; i++) {
            indexes[i] = in.readVarInt(true);
            int n = in.readVarInt(true);
            if (indexes[i] < 0 || n < 0 || (n > 0 && indexes[i] > n)) {
                throw new HopFailure(ChainErrorCode.MALFORMED_FRAME, "HEARTBEAT frame with branch index " + indexes[i]
                        + " of " + n);
            }
            siblings.add(n);
        }
        byte owes = in.readByte();
        if (owes != 0 && owes != 1) {
            throw new HopFailure(ChainErrorCode.MALFORMED_FRAME, "HEARTBEAT frame with owes-replies flag " + owes + " (0 or 1)");
        }
        return new HeartbeatFrame(chainId, secret, hop, host, BranchId.of(indexes), siblings, owes == 1);
    }

    private static long readBudget(Input in) {
        return switch (in.readByte()) {
            case 0 -> ChainHeader.NO_DEADLINE;
            case 1 -> {
                long budget = in.readVarLong(false);
                yield budget == ChainHeader.NO_DEADLINE ? budget - 1 : budget; // a budget that is there is never "none"
            }
            default -> throw new HopFailure(ChainErrorCode.MALFORMED_FRAME, "corrupt deadline flag");
        };
    }

    private static void writeCredit(Output out, Credit c) {
        out.writeVarInt(c.exponent(), true);
        byte[] n = c.numeratorBytes();
        out.writeVarInt(n.length, true);
        out.writeBytes(n);
    }

    /**
     * A request's credit: never zero (a chain always travels with a share of its credit; a hop
     * carrying none could not return any, and splitting it would fail).
     */
    private static Credit readRequestCredit(Input in) {
        Credit c = readCredit(in);
        if (c.isZero()) {
            throw new HopFailure(ChainErrorCode.MALFORMED_FRAME, "REQUEST frame with zero credit");
        }
        return c;
    }

    private static Credit readCredit(Input in) {
        int exponent = in.readVarInt(true);
        int length = count(in);
        if (exponent == 0 && length == 1) {
            if (in.readByte() == 1) {
                return Credit.ONE; // (the whole credit, carried by every chain that has not split: nothing to make)
            }
            in.setPosition(in.position() - 1);
        }
        byte[] n = in.readBytes(length);
        try {
            if (length >= 1 && length <= 7) { // (a share's numerator is small: read without a BigInteger)
                long v = n[0]; // big-endian two's complement, as BigInteger's bytes
                for (int i = 1; i < length; i++) {
                    v = v << 8 | (n[i] & 0xFF);
                }
                return Credit.of(v, exponent);
            }
            return Credit.of(new BigInteger(n), exponent);
        } catch (RuntimeException e) {
            throw new HopFailure(ChainErrorCode.MALFORMED_FRAME, "corrupt credit: " + e.getMessage());
        }
    }

    private static void writeFunction(Output out, ChainingFunctionSource f) {
        if (f.isNone()) {
            out.writeByte(0);
            return;
        }
        if (f.isSame()) {
            throw new IllegalStateException("SAME must be resolved before sending");
        }
        if (f.isReference()) {
            out.writeByte(REFERENCE | (1 + f.language().ordinal()));
            out.writeString(f.id());
            out.writeString(f.repository());
            return;
        }
        out.writeByte(1 + f.language().ordinal());
        EncodedFunctions.write(out, f.source()); // (the same text at every hop: its bytes kept)
    }

    /** Flag on the function's language byte: the function travels as id + repository, not as source. */
    private static final int REFERENCE = 0x40;

    private static void writeStrings(Output out, List<String> strings) {
        out.writeVarInt(strings.size(), true);
        for (String s : strings) {
            out.writeString(s);
        }
    }

    private static void writeConsole(Output out, List<ConsoleLine> console) {
        out.writeVarInt(console.size(), true);
        for (ConsoleLine l : console) {
            out.writeVarInt(l.hop(), true);
            out.writeString(l.host());
            out.writeString(l.source());
            out.writeString(l.text());
        }
    }

    private static void writeTimings(Output out, List<HopTiming> timings) {
        if (timings instanceof CarriedTimings carried) { // the received ones as they came
            carried.write(out, WireFormat::writeTiming);
            return;
        }
        out.writeVarInt(timings.size(), true);
        for (HopTiming t : timings) {
            writeTiming(out, t);
        }
    }

    private static void writeTiming(Output out, HopTiming t) {
        out.writeVarInt(t.hop(), true);
        out.writeString(t.host());
        out.writeString(t.serviceFunction());
        out.writeVarLong(t.queueNanos(), true);
        out.writeVarLong(t.serviceNanos(), true);
        out.writeVarLong(t.compileNanos(), true);
        out.writeVarLong(t.chainingNanos(), true);
        out.writeString(t.chainingHost());
    }

    private static void writeState(Kryo kryo, Output out, ChainState state) {
        out.writeVarInt(state.size(), true);
        for (Map.Entry<String, Object> e : state.asMap().entrySet()) {
            out.writeString(e.getKey());
            kryo.writeClassAndObject(out, e.getValue());
        }
    }

    private static void writeFailure(Output out, ChainFailure f) {
        out.writeString(f.exceptionName());
        out.writeString(f.message());
        out.writeString(f.host());
        out.writeVarInt(f.hop(), true);
        writeStrings(out, f.path());
        writeStrings(out, f.details());
        writeConsole(out, f.console());
        writeTimings(out, f.timings());
        writeFields(out, f.fields());
    }

    /** Tags of the structured failure fields; a receiver skips tags it does not know. */
    private static final int TRANSIENT = 1;
    private static final int SANDBOX_RULE = 2;
    private static final int TYPE_NAME = 3;
    private static final int TYPE_ID = 4;
    private static final int DIAGNOSTIC = 5;

    private static void writeFields(Output out, FailureFields f) {
        List<Output> fields = new ArrayList<>();
        List<Integer> tags = new ArrayList<>();
        if (f.transientCondition()) {
            tags.add(TRANSIENT);
            fields.add(new Output(0));
        }
        if (f.sandboxRule() != null) {
            tags.add(SANDBOX_RULE);
            fields.add(field(o -> o.writeString(f.sandboxRule())));
        }
        if (f.typeName() != null) {
            tags.add(TYPE_NAME);
            fields.add(field(o -> o.writeString(f.typeName())));
        }
        if (f.typeId() != null) {
            tags.add(TYPE_ID);
            fields.add(field(o -> o.writeVarInt(f.typeId(), false)));
        }
        for (Diagnostic d : f.diagnostics()) {
            tags.add(DIAGNOSTIC);
            fields.add(field(o -> {
                o.writeVarLong(d.line(), true);
                o.writeVarLong(d.column(), true);
                o.writeString(d.message());
            }));
        }
        out.writeVarInt(fields.size(), true);
        for (int i = 0; i < fields.size(); i++) {
            out.writeVarInt(tags.get(i), true);
            out.writeVarInt(fields.get(i).position(), true);
            out.writeBytes(fields.get(i).getBuffer(), 0, fields.get(i).position());
        }
    }

    private static Output field(Consumer<Output> write) {
        Output o = new Output(32, -1);
        write.accept(o);
        return o;
    }

    // ---------------------------------------------------------------- decoding

    /**
     * Decodes a frame: {@code frame} holds the bytes after the length field (version, type, payload).
     * User values that cannot be read are reported in the message's {@code decodeError}, so the
     * chain's originator can be told; anything else that cannot be read throws.
     *
     * @throws HopFailure with {@link ChainErrorCode#MALFORMED_FRAME} if the frame cannot be read at all
     */
    public Object decode(ByteBuf frame) {
        int length = frame.readableBytes();
        int at = frame.readerIndex();
        if (length < 2) {
            throw new HopFailure(ChainErrorCode.MALFORMED_FRAME, "frame of " + length + " bytes is too short");
        }
        byte typeByte = frame.getByte(at + 1);
        FrameType type = FrameType.fromWire(typeByte);
        if (type == null) {
            throw new HopFailure(ChainErrorCode.MALFORMED_FRAME, "unknown frame type " + typeByte);
        }
        byte expected = type == FrameType.HELLO ? FrameType.HELLO_VERSION : FrameType.PROTOCOL_VERSION;
        byte version = frame.getByte(at);
        if (version != expected) {
            throw new HopFailure(ChainErrorCode.MALFORMED_FRAME, "unsupported protocol version " + version
                    + " (this node speaks " + VersionRange.SUPPORTED.describe() + ")");
        }
        // read in place (the caller keeps the frame until this returns; what is decoded holds no part of it)
        Input in = frame.hasArray() ? new BoundedInput(frame.array(), frame.arrayOffset() + at + 2, length - 2)
                : BoundedBufferInput.over(frame.nioBuffer(at + 2, length - 2));
        frame.skipBytes(length);
        try {
            return decode(type, length, in);
        } finally {
            if (in instanceof BoundedBufferInput pooled) {
                pooled.recycle();
            }
        }
    }

    private Object decode(FrameType type, int length, Input in) {
        return serialization.withKryo(kryo -> {
            Object message;
            try {
                message = switch (type) {
                    case HELLO -> new Hello(new VersionRange(in.readVarInt(true), in.readVarInt(true)), in.readString(),
                            in.readString(), in.readVarInt(true), in.readVarInt(true));
                    case REQUEST -> readRequest(kryo, in);
                    case RESULT -> readResult(kryo, in);
                    case ERROR -> new ChainErrorFrame(in.readVarLong(true), readSecret(in),
                            ChainErrorCode.forNumber(in.readVarInt(true)), readFailure(in), readCredit(in));
                    case REPLY -> readReply(kryo, in, length + 4);
                    case QUIET -> new QuietFrame(in.readVarLong(true), readSecret(in), readCredit(in), readBranch(in, List.of()),
                            in.readVarInt(true), in.readString());
                    case WINDOW_UPDATE -> readWindowUpdate(in);
                    case CANCEL -> readCancel(in);
                    case HEARTBEAT -> readHeartbeatFrame(in);
                    case PING -> readPing(in);
                    case STREAM_DATA -> readStreamData(in);
                    case STREAM_END -> readStreamEnd(in);
                    case STREAM_CREDIT -> readStreamCredit(in);
                    case STREAM_CANCEL -> readStreamCancel(in);
                    case VOTE -> readVote(in);
                    case DECIDE -> readDecide(in);
                    case DECIDE_ACK -> readDecideAck(in);
                    case WOUND -> readWound(in);
                    case QUERY -> readQuery(in);
                    case GOAWAY -> readGoAway(in);
                };
            } catch (HopFailure e) {
                throw e;
            } catch (RuntimeException | StackOverflowError e) {
                throw new HopFailure(ChainErrorCode.MALFORMED_FRAME, "cannot decode " + type + " frame: "
                        + (e instanceof StackOverflowError ? "it overflowed the stack" : e.getMessage()), e);
            }
            boolean newerHello = message instanceof Hello h && h.versions().max() > VersionRange.SUPPORTED.max();
            if (in.position() != in.limit() && !newerHello && (message instanceof Hello || message instanceof QuietFrame
                    || message instanceof ChainErrorFrame || message instanceof CancelFrame
                    || message instanceof WindowUpdateFrame || message instanceof HeartbeatFrame
                    || message instanceof PingFrame || message instanceof GoAwayFrame || message instanceof StreamFrames.Data
                    || message instanceof StreamFrames.End || message instanceof StreamFrames.Credit
                    || message instanceof StreamFrames.Cancel || message instanceof TxFrames.TxFrame)) {
                throw new HopFailure(ChainErrorCode.MALFORMED_FRAME, type + " frame has " + (in.limit() - in.position())
                        + " trailing bytes");
            }
            return message;
        });
    }

    private ChainRequest readRequest(Kryo kryo, Input in) {
        long chainId = in.readVarLong(true);
        ChainSecret secret = readSecret(in);
        String origin = in.readString();
        String originHost = in.readString();
        int originPort = in.readVarInt(true);
        NodeAddress originator = new NodeAddress(origin, originHost, originPort);
        int hop = in.readVarInt(true);
        int maxHops = in.readVarInt(true);
        List<String> path = readStrings(in);
        List<ConsoleLine> console = readConsole(in);
        List<HopTiming> timings = readTimings(in);
        String serviceFunction = in.readString();
        ChainingFunctionSource chainingFunction = readFunction(in);
        Credit credit = readRequestCredit(in);
        NodeAddress replyTo = readReplyTo(in, originator);
        RequestStream stream = null;
        ChainHeader header = new ChainHeader(new ChainIdentity(chainId, secret, originator, 1),
                new ChainSoFar(hop, path, console, timings, Metadata.empty()), serviceFunction, chainingFunction, credit,
                new ReturnRoute(replyTo, List.of(), BranchId.root()),
                new ChainLimits(maxHops, ChainHeader.NO_DEADLINE, HeartbeatBudget.NONE));
        if (header.origin() == null || header.serviceFunction() == null) {
            throw new HopFailure(ChainErrorCode.MALFORMED_FRAME, "REQUEST frame without origin or service function");
        }
        try {
            // from here on, what cannot be read is reported to the chain's reply-to node
            Metadata metadata = readMetadata(in);
            List<ReturnPoint> stack = readReturnStack(kryo, in);
            BranchId branch = readBranch(in, stack);
            long budget = readBudget(in);
            HeartbeatBudget heartbeat = readHeartbeat(in);
            int attempt = readAttempt(in);
            ChainCredential credential = readCredential(in);
            long streamId = in.readVarLong(true); // field 22
            if (streamId < 0) {
                throw new HopFailure(ChainErrorCode.MALFORMED_FRAME, "REQUEST frame announces stream "
                        + Long.toUnsignedString(streamId) + " (at most 2^63 - 1)");
            }
            stream = streamId == 0 ? null : new AnnouncedStream(streamId);
            TxStamp tx = readTx(in); // field 23
            header = new ChainHeader(new ChainIdentity(chainId, secret, originator, attempt, credential, tx),
                    new ChainSoFar(hop, path, console, timings, metadata), serviceFunction, chainingFunction, credit,
                    new ReturnRoute(replyTo, stack, branch), new ChainLimits(maxHops, budget, heartbeat));
            Object params = kryo.readClassAndObject(in);
            ChainState state = readState(kryo, in);
            checkFullyRead(in, "REQUEST");
            return new ChainRequest(header, params, state, null, 0, null, stream);
        } catch (RuntimeException e) {
            return new ChainRequest(header, null, null, e instanceof HopFailure hf ? hf
                    : serialization.decodeFailure(e, "the parameters or state for service function '"
                    + header.serviceFunction() + "' sent by " + (header.path().isEmpty() ? header.origin()
                    : header.path().get(header.path().size() - 1))), 0, null, stream);
        }
    }

    /**
     * A stream a REQUEST announced, as decoded: the transport replaces it with the stream it registers
     * for the connection (whose data frames follow the REQUEST).
     */
    public record AnnouncedStream(long id) implements RequestStream {
        @Override
        public java.io.InputStream input() {
            throw new IllegalStateException("stream " + id + " was announced but not registered on a connection");
        }

        @Override
        public void discard(String why) {
        }
    }

    private static long streamId(Input in, String type) {
        long id = in.readVarLong(true);
        if (id <= 0) {
            throw new HopFailure(ChainErrorCode.MALFORMED_FRAME, type + " frame for stream "
                    + Long.toUnsignedString(id) + " (ids are 1 to 2^63 - 1)");
        }
        return id;
    }

    private static StreamFrames.Data readStreamData(Input in) {
        long id = streamId(in, "STREAM_DATA");
        int n = count(in);
        return new StreamFrames.Data(id, in.readBytes(n));
    }

    private static StreamFrames.End readStreamEnd(Input in) {
        long id = streamId(in, "STREAM_END");
        long total = in.readVarLong(true);
        if (total < 0) {
            throw new HopFailure(ChainErrorCode.MALFORMED_FRAME, "STREAM_END frame with a negative total");
        }
        return new StreamFrames.End(id, total, in.readString());
    }

    private static StreamFrames.Credit readStreamCredit(Input in) {
        long id = streamId(in, "STREAM_CREDIT");
        long bytes = in.readVarLong(true);
        if (bytes <= 0) {
            throw new HopFailure(ChainErrorCode.MALFORMED_FRAME, "STREAM_CREDIT frame granting "
                    + Long.toUnsignedString(bytes) + " bytes (1 to 2^63 - 1)");
        }
        return new StreamFrames.Credit(id, bytes);
    }

    private static StreamFrames.Cancel readStreamCancel(Input in) {
        long id = streamId(in, "STREAM_CANCEL");
        String message = in.readString();
        return new StreamFrames.Cancel(id, message == null ? "" : message);
    }

    private static CancelFrame readCancel(Input in) {
        CancelFrame cancel = new CancelFrame(in.readVarLong(true), readSecret(in), in.readString(), readBudget(in));
        if (cancel.origin() == null) {
            throw new HopFailure(ChainErrorCode.MALFORMED_FRAME, "CANCEL frame without origin");
        }
        return cancel;
    }

    private ChainResultFrame readResult(Kryo kryo, Input in) {
        ChainKey chain = readChainKey(in);
        List<String> path = readStrings(in);
        List<ConsoleLine> console = readConsole(in);
        List<HopTiming> timings = readTimings(in);
        Credit credit = readCredit(in);
        try {
            Object value = kryo.readClassAndObject(in);
            checkFullyRead(in, "RESULT");
            return new ChainResultFrame(chain, path, console, timings, value, credit, null);
        } catch (RuntimeException e) {
            return new ChainResultFrame(chain, path, console, timings, null, credit, e instanceof HopFailure hf ? hf
                    : serialization.decodeFailure(e, "the chain's result"
                    + (path.isEmpty() ? "" : " sent by " + path.get(path.size() - 1))));
        }
    }

    private ReplyFrame readReply(Kryo kryo, Input in, int size) {
        ChainKey chain = readChainKey(in);
        BranchId branch = readBranch(in, List.of());
        int hop = in.readVarInt(true);
        String host = in.readString();
        ReplyStream stream = new ReplyStream(hop, host);
        long seqPlusOne = in.readVarLong(true);
        if (seqPlusOne < 0) {
            throw new HopFailure(ChainErrorCode.MALFORMED_FRAME, "REPLY frame with reply number "
                    + Long.toUnsignedString(seqPlusOne) + " (at most 2^63 - 1)");
        }
        long seq = seqPlusOne - 1;
        try {
            Object value = kryo.readClassAndObject(in);
            checkFullyRead(in, "REPLY");
            return new ReplyFrame(chain, branch, stream, seq, value, null, size);
        } catch (RuntimeException e) {
            return new ReplyFrame(chain, branch, stream, seq, null, e instanceof HopFailure hf ? hf
                    : serialization.decodeFailure(e, "a partial reply sent by " + host + " (hop " + hop + ")"), size);
        }
    }

    private static WindowUpdateFrame readWindowUpdate(Input in) {
        ChainKey chain = readChainKey(in);
        int hop = in.readVarInt(true);
        String host = in.readString();
        int kind = in.readByte();
        int replies = in.readVarInt(true);
        long bytes = in.readVarLong(true);
        long want = in.readVarLong(true);
        if (host == null || (kind != 0 && kind != 1) || replies < 0 || bytes < 0 || want < 0 || (kind == 0 && want != 0)) {
            throw new HopFailure(ChainErrorCode.MALFORMED_FRAME, "corrupt WINDOW_UPDATE frame");
        }
        return new WindowUpdateFrame(chain, new ReplyStream(hop, host), kind == 0, replies, bytes, want);
    }

    private static NodeAddress readReplyTo(Input in, NodeAddress originator) {
        int tag = in.readByte();
        return switch (tag) {
            case REPLY_TO_ORIGINATOR -> originator;
            case REPLY_TO_ADDRESS -> readAddress(in);
            default -> throw new HopFailure(ChainErrorCode.MALFORMED_FRAME, "unknown reply-to tag " + tag);
        };
    }

    private static NodeAddress readAddress(Input in) {
        return new NodeAddress(in.readString(), in.readString(), in.readVarInt(true));
    }

    private static Metadata readMetadata(Input in) {
        int n = count(in);
        if (n > Metadata.MAX_ENTRIES) {
            throw new HopFailure(ChainErrorCode.MALFORMED_FRAME, "the chain's metadata has " + n + " entries (at most "
                    + Metadata.MAX_ENTRIES + ")");
        }
        Metadata m = Metadata.empty();
        for (int i = 0; i < n; i++) {
            String key = in.readString();
            if (!Metadata.isValidKey(key) || m.contains(key)) {
                throw new HopFailure(ChainErrorCode.MALFORMED_FRAME, "the chain's metadata has an invalid or repeated key");
            }
            int tag = in.readByte();
            try {
                m = switch (tag) {
                    case METADATA_TEXT -> m.with(key, requireText(in.readString()));
                    case METADATA_BYTES -> m.with(key, in.readBytes(count(in)));
                    default -> throw new HopFailure(ChainErrorCode.MALFORMED_FRAME, "unknown metadata value tag " + tag);
                };
            } catch (IllegalArgumentException tooLarge) {
                throw new HopFailure(ChainErrorCode.MALFORMED_FRAME, "the chain's metadata is too large: "
                        + tooLarge.getMessage());
            }
        }
        return m;
    }

    private static String requireText(String s) {
        if (s == null) {
            throw new HopFailure(ChainErrorCode.MALFORMED_FRAME, "a metadata text value is null");
        }
        return s;
    }

    private static List<ReturnPoint> readReturnStack(Kryo kryo, Input in) {
        int n = count(in);
        if (n > ReturnPoint.MAX_DEPTH) {
            throw new HopFailure(ChainErrorCode.MALFORMED_FRAME, "the chain's return stack is " + n + " deep (at most "
                    + ReturnPoint.MAX_DEPTH + ")");
        }
        List<ReturnPoint> stack = new ArrayList<>(n);
        for (int i = 0; i < n; i++) {
            NodeAddress node = readAddress(in);
            long continuation = in.readVarLong(true);
            int flags = in.readByte() & 0xFF;
            if ((flags & ~(RETURN_POINT_COMPOSED | RETURN_POINT_REPLIES_TO_ORIGINATOR | RETURN_POINT_MERGE)) != 0) {
                throw new HopFailure(ChainErrorCode.MALFORMED_FRAME, "unknown return point flags " + flags);
            }
            boolean repliesToCreator = (flags & RETURN_POINT_REPLIES_TO_ORIGINATOR) == 0;
            if ((flags & RETURN_POINT_MERGE) != 0) {
                if (flags != (RETURN_POINT_MERGE | RETURN_POINT_REPLIES_TO_ORIGINATOR)) {
                    throw new HopFailure(ChainErrorCode.MALFORMED_FRAME, "a merge point of the chain's return stack "
                            + "cannot be composed or take replies (flags " + flags + ")");
                }
                int branches = in.readVarInt(true);
                if (branches < 1 || branches > NextHop.Split.MAX_BRANCHES) {
                    throw new HopFailure(ChainErrorCode.MALFORMED_FRAME, "a merge point of the chain's return stack counts "
                            + branches + " branches (1 to " + NextHop.Split.MAX_BRANCHES + ")");
                }
                stack.add(ReturnPoint.merge(node, continuation, branches));
            } else {
                ReturnPoint point = (flags & RETURN_POINT_COMPOSED) != 0
                        ? ReturnPoint.composed(node, continuation, repliesToCreator, readFunction(in), readState(kryo, in))
                        : new ReturnPoint(node, continuation, repliesToCreator);
                ChainCredential creator = readCredential(in);
                stack.add(creator == null ? point : point.withCreatorCredential(creator));
            }
        }
        return List.copyOf(stack);
    }

    /**
     * The branch id; each level gets its sibling count from the merge points of {@code stack} (one
     * per split, in order) when there is one per level.
     */
    private static BranchId readBranch(Input in, List<ReturnPoint> stack) {
        int n = count(in);
        if (n > BranchId.MAX_DEPTH) {
            throw new HopFailure(ChainErrorCode.MALFORMED_FRAME, "the chain's branch id is " + n + " levels deep (at most "
                    + BranchId.MAX_DEPTH + ")");
        }
        int[] indexes = new int[n];
        for (int i = 0; i < n; i++) {
            indexes[i] = in.readVarInt(true);
            if (indexes[i] < 0) {
                throw new HopFailure(ChainErrorCode.MALFORMED_FRAME, "negative branch index");
            }
        }
        if (n == 0) {
            return BranchId.root();
        }
        List<ReturnPoint> merges = stack.stream().filter(ReturnPoint::isMerge).toList();
        if (merges.size() != n) {
            return BranchId.of(indexes);
        }
        BranchId b = BranchId.root();
        for (int i = 0; i < n; i++) {
            b = b.child(indexes[i], merges.get(i).branches());
        }
        return b;
    }

    private static void checkFullyRead(Input in, String type) {
        if (in.position() != in.limit()) {
            throw new HopFailure(ChainErrorCode.MALFORMED_FRAME, type + " frame has " + (in.limit() - in.position())
                    + " trailing bytes");
        }
    }

    private static ChainingFunctionSource readFunction(Input in) {
        int tag = in.readByte();
        if (tag == 0) {
            return ChainingFunctionSource.NONE;
        }
        int lang = tag & ~REFERENCE;
        FunctionLanguage[] languages = FunctionLanguage.values();
        if (lang < 1 || lang > languages.length) {
            throw new HopFailure(ChainErrorCode.MALFORMED_FRAME, "unknown chaining-function language " + lang);
        }
        if ((tag & REFERENCE) != 0) {
            String id = in.readString();
            String repository = in.readString();
            try {
                return ChainingFunctionSource.reference(id, repository);
            } catch (RuntimeException e) {
                throw new HopFailure(ChainErrorCode.MALFORMED_FRAME, "corrupt chaining-function reference: " + e.getMessage());
            }
        }
        return RecentFunctions.read(in, languages[lang - 1]);
    }

    private static List<String> readStrings(Input in) {
        int n = count(in);
        List<String> out = new ArrayList<>(n);
        for (int i = 0; i < n; i++) {
            out.add(in.readString());
        }
        return out;
    }

    private static List<ConsoleLine> readConsole(Input in) {
        int n = count(in);
        List<ConsoleLine> out = new ArrayList<>(n);
        for (int i = 0; i < n; i++) {
            out.add(new ConsoleLine(in.readVarInt(true), in.readString(), in.readString(), in.readString()));
        }
        return out;
    }

    /** The hop timings, kept as they arrived until something reads them ({@link CarriedTimings}). */
    private static List<HopTiming> readTimings(Input in) {
        return CarriedTimings.read(in, count(in));
    }

    /** The entries of a chain state that its decoding makes room for before it has read any (see readState). */
    private static final int STATE_ENTRIES_AT_FIRST = 16;

    private static ChainState readState(Kryo kryo, Input in) {
        int n = count(in);
        if (n == 0) {
            return ChainState.empty();
        }
        // the pairs go to ChainState.of, which makes the state's one map (fromMap would copy a map made here);
        // the array grows as entries are read (n is the peer's word: it must not size an allocation)
        Object[] pairs = new Object[2 * Math.min(n, STATE_ENTRIES_AT_FIRST)];
        boolean nullName = false;
        for (int i = 0; i < n; i++) {
            if (2 * i == pairs.length) {
                pairs = Arrays.copyOf(pairs, 2 * Math.min(n, 2 * i));
            }
            String name = in.readString();
            nullName |= name == null;
            pairs[2 * i] = name;
            pairs[2 * i + 1] = kryo.readClassAndObject(in);
        }
        if (!nullName) {
            return ChainState.of(pairs);
        }
        Map<String, Object> map = new LinkedHashMap<>(); // (a null name, which rpcc never writes: kept as before)
        for (int i = 0; i < pairs.length; i += 2) {
            map.put((String) pairs[i], pairs[i + 1]);
        }
        return ChainState.fromMap(map);
    }

    private static ChainFailure readFailure(Input in) {
        return new ChainFailure(in.readString(), in.readString(), in.readString(), in.readVarInt(true),
                readStrings(in), readStrings(in), readConsole(in), readTimings(in), readFields(in));
    }

    private static FailureFields readFields(Input in) {
        int n = count(in);
        boolean transientCondition = false;
        String rule = null;
        String typeName = null;
        Integer typeId = null;
        List<Diagnostic> diagnostics = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            int tag = in.readVarInt(true);
            int length = count(in);
            int end = in.position() + length;
            switch (tag) {
                case TRANSIENT -> transientCondition = true;
                case SANDBOX_RULE -> rule = in.readString();
                case TYPE_NAME -> typeName = in.readString();
                case TYPE_ID -> typeId = in.readVarInt(false);
                case DIAGNOSTIC -> diagnostics.add(new Diagnostic(in.readVarLong(true), in.readVarLong(true),
                        in.readString()));
                default -> { } // a field of a newer version: skipped
            }
            if (in.position() > end) {
                throw new HopFailure(ChainErrorCode.MALFORMED_FRAME, "failure field " + tag + " overruns its " + length
                        + " bytes");
            }
            in.setPosition(end); // a newer version may have extended a field
        }
        return new FailureFields(transientCondition, rule, typeName, typeId, diagnostics);
    }

    /** A list length, checked against what the frame can hold (a corrupt length must not allocate gigabytes). */
    private static int count(Input in) {
        int n = in.readVarInt(true);
        if (n < 0 || n > in.limit() - in.position()) {
            throw new HopFailure(ChainErrorCode.MALFORMED_FRAME, "corrupt list length " + n);
        }
        return n;
    }

    /**
     * {@code failure}, encoded as in an ERROR frame ({@code code:varint failure}):
     * the params of the request that takes a sub-chain's failure to its creator (a {@code byte[]}, a
     * built-in type, so that every node can read it).
     */
    public static byte[] encodeFailure(LocatedFailure failure) {
        Output out = new Output(256, -1);
        out.writeVarInt(failure.code().number(), true);
        writeFailure(out, failure.failure());
        return out.toBytes();
    }

    /**
     * The failure {@link #encodeFailure} encoded.
     *
     * @throws HopFailure with {@link ChainErrorCode#MALFORMED_FRAME} if {@code bytes} is not one
     */
    public static LocatedFailure decodeFailure(byte[] bytes) {
        try {
            // a peer's bytes (a RETURN_FAILURE request's params): read with the same checks as a frame
            Input in = new BoundedInput(bytes, 0, bytes.length);
            LocatedFailure f = new LocatedFailure(ChainErrorCode.forNumber(in.readVarInt(true)), readFailure(in));
            checkFullyRead(in, "sub-chain failure");
            return f;
        } catch (HopFailure e) {
            throw e;
        } catch (RuntimeException e) {
            throw new HopFailure(ChainErrorCode.MALFORMED_FRAME, "cannot decode a sub-chain's failure: " + e, e);
        }
    }
}
