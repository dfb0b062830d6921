package io.rpcc.core.internal.transport;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import com.sun.management.ThreadMXBean;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.rpcc.core.BranchId;
import io.rpcc.core.ChainErrorCode;
import io.rpcc.core.ChainFailure;
import io.rpcc.core.ChainState;
import io.rpcc.core.ChainingFunctionSource;
import io.rpcc.core.ConsoleLine;
import io.rpcc.core.HopTiming;
import io.rpcc.core.Metadata;
import io.rpcc.core.TypeRegistry;
import io.rpcc.core.internal.wire.CancelFrame;
import io.rpcc.core.internal.wire.HeartbeatFrame;
import io.rpcc.core.internal.wire.HopFailure;
import io.rpcc.core.internal.wire.WindowUpdateFrame;
import io.rpcc.core.internal.wire.Credit;
import io.rpcc.core.internal.wire.ChainErrorFrame;
import io.rpcc.core.internal.wire.ChainHeader;
import io.rpcc.core.internal.wire.ReturnPoint;
import io.rpcc.core.internal.wire.ChainCredential;
import io.rpcc.core.internal.wire.ChainSoFar;
import io.rpcc.core.internal.wire.ChainIdentity;
import io.rpcc.core.internal.wire.ChainKey;
import io.rpcc.core.internal.wire.ReturnRoute;
import io.rpcc.core.internal.wire.ChainLimits;
import io.rpcc.core.internal.wire.HeartbeatBudget;
import io.rpcc.core.internal.wire.ChainRequest;
import io.rpcc.core.internal.wire.ChainResultFrame;
import io.rpcc.core.internal.wire.ChainSecret;
import io.rpcc.core.internal.wire.Hello;
import io.rpcc.core.internal.wire.NodeAddress;
import io.rpcc.core.internal.wire.QuietFrame;
import io.rpcc.core.internal.wire.TxFrames;
import io.rpcc.core.internal.wire.TxStamp;
import io.rpcc.core.internal.wire.ReplyFrame;
import io.rpcc.core.internal.wire.ReplyStream;
import io.rpcc.core.internal.wire.Serialization;
import io.rpcc.core.internal.wire.WireFormat;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.management.ClassLoadingMXBean;
import java.lang.management.ManagementFactory;
import java.lang.reflect.RecordComponent;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.time.LocalDate;
import java.time.ZoneId;
import java.time.ZonedDateTime;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;

/**
 * Coverage-guided fuzzing (Jazzer) of everything a peer's bytes reach before any rpcc logic: the
 * frame body decoder, the length-prefixed stream decoder in a Netty pipeline, and Kryo decoding of
 * user values inside REQUEST, RESULT and REPLY frames. Properties checked for every input:
 * <ul>
 *   <li>decoding either yields a message, or fails with a {@link HopFailure} of kind
 *       {@code MALFORMED_FRAME} (the stream decoder: a {@code MalformedFrame} message, or Netty's
 *       framing refusals for oversized and negative lengths); never any other exception, error
 *       (stack overflow, out of memory) or hang;</li>
 *   <li>decoding allocates at most a small multiple of the frame's size;</li>
 *   <li>a user value that cannot be read is reported in the frame's {@code decodeError} (of kind
 *       {@code MALFORMED_FRAME}, or {@code UNREGISTERED_TYPE} with the unknown type id) with its
 *       header intact, never thrown;</li>
 *   <li>a decoded frame re-encodes, and decoding that again gives an equal frame;</li>
 *   <li>every buffer is released.</li>
 * </ul>
 * This class holds the checks and the seeds; each target is a test class of its own ({@link FrameBodyFuzzTest},
 * {@link FrameStreamFuzzTest}, {@link UserValueFuzzTest}), because Jazzer fuzzes one target per JVM and the build
 * runs the three JVMs at once (rpcc-core's {@code fuzz} execution). Seeds are valid frames of every type, made
 * here; inputs that once found a bug are kept under
 * {@code src/test/resources/io/rpcc/core/internal/transport/<TargetClass>Inputs/<target>/}. In
 * {@code ./rpcc test} each target fuzzes for a few seconds; {@code ./rpcc fuzz [seconds]} runs them
 * longer. Without {@code JAZZER_FUZZ} the targets run once per seed and kept input, as plain regression tests.
 */
abstract class WireFuzz {
    record Order(String sku, int qty, List<String> tags) {
    }

    record Blob(String name, byte[] data, Map<String, Object> attributes) {
    }

    record Box(Object content) {
    }

    /** The largest frame the stream target accepts (small, so oversized frames are reachable). */
    static final int STREAM_MAX_FRAME = 1024;
    /** Room for re-encoding a decoded frame (its canonical encoding is never much larger). */
    static final int REENCODE_MAX_FRAME = 1 << 20;
    /** Allocation allowed for decoding: a fixed allowance plus this many bytes per input byte. */
    static final long ALLOCATION_BASE = 1 << 20;
    static final long ALLOCATION_PER_BYTE = 64;

    static final WireFormat WIRE = new WireFormat(new Serialization(TypeRegistry.of(Order.class, Blob.class,
            Box.class)));
    static final ThreadMXBean THREADS = (ThreadMXBean) ManagementFactory.getThreadMXBean();
    static final ClassLoadingMXBean CLASSES = ManagementFactory.getClassLoadingMXBean();

    /** Inputs executed per target, printed after the run (so {@code ./rpcc fuzz} can report them). */
    static final Map<String, AtomicLong> EXECUTED = new LinkedHashMap<>();
    static long startNanos;

    /** The kinds of frame the user-value target wraps its payload in. */
    enum Carrier { REQUEST, RESULT, REPLY }

    // ---------------------------------------------------------------- targets

    // ---------------------------------------------------------------- checks

    /**
     * Decodes {@code body}; checks the refusal is typed, the allocation bounded, and the round trip.
     * Returns the message, or {@code null} if the frame was refused as a whole.
     */
    static Object checkDecode(byte[] body) {
        Object message;
        try {
            message = decodeWithinAllocationBound(body);
        } catch (HopFailure e) {
            checkMalformed(e);
            checkSameInDirectBuffer(body, e);
            return null;
        }
        checkSameInDirectBuffer(body, message);
        HopFailure decodeError = decodeError(message);
        if (decodeError != null) {
            checkUnreadableValue(decodeError);
        } else {
            checkRoundTrip(message);
        }
        return message;
    }

    /**
     * Decodes {@code body} and fails if that allocated more than the bound every time. The first
     * decodings that reach new code also load (and Jazzer instruments) classes and link call sites
     * (string concatenations, lambdas) on this thread, which can take a few runs and megabytes once
     * (a 577-byte input measured 3.2, 3.2, 0.9, 1.2 MB, then 16 KB each time): an excess counts only
     * if it is still there on the fifth decoding, as an attacker's repeated frame would cause it, and
     * the fifth must load no class (a decoding that loads classes every time would fill the metaspace).
     */
    static Object decodeWithinAllocationBound(byte[] body) {
        long allowed = ALLOCATION_BASE + ALLOCATION_PER_BYTE * body.length;
        long used = 0;
        long loaded = 0;
        for (int attempt = 1; attempt <= 5; attempt++) {
            ByteBuf frame = Unpooled.wrappedBuffer(body);
            long classesBefore = CLASSES.getTotalLoadedClassCount();
            long before = THREADS.getCurrentThreadAllocatedBytes();
            Object outcome;
            try {
                outcome = WIRE.decode(frame);
            } catch (HopFailure e) {
                outcome = e;
            } finally {
                frame.release();
            }
            used = THREADS.getCurrentThreadAllocatedBytes() - before;
            loaded = CLASSES.getTotalLoadedClassCount() - classesBefore;
            if (used <= allowed && loaded == 0) {
                if (outcome instanceof HopFailure e) {
                    throw e;
                }
                return outcome;
            }
        }
        throw new AssertionError("decoding a frame body of " + body.length + " bytes allocated " + used
                + " bytes (allowed: " + allowed + ") and loaded " + loaded + " classes, the fifth time");
    }

    /**
     * Decodes {@code body} again from a direct buffer (a frame as a socket's reads bring it: read in
     * place through a {@code ByteBuffer}, not a heap array) and checks it decodes as from the heap:
     * the same message, or the same refusal.
     */
    static void checkSameInDirectBuffer(byte[] body, Object fromHeap) {
        ByteBuf direct = Unpooled.directBuffer(Math.max(1, body.length)).writeBytes(body);
        Object outcome;
        try {
            outcome = WIRE.decode(direct);
        } catch (HopFailure e) {
            outcome = e;
        } finally {
            direct.release();
        }
        if (fromHeap instanceof HopFailure h) {
            HopFailure d = assertInstanceOf(HopFailure.class, outcome, "refused from the heap, not from a direct buffer");
            assertEquals(said(h), said(d));
            return;
        }
        HopFailure heapError = decodeError(fromHeap);
        if (heapError != null) {
            HopFailure directError = decodeError(outcome);
            assertNotNull(directError, () -> "a direct buffer decoded what the heap could not: " + heapError);
            assertEquals(said(heapError), said(directError));
            return;
        }
        if (!StructuralEquality.equal(fromHeap, outcome)) {
            fail("a frame decodes differently from a direct buffer:\n  " + fromHeap + "\n  " + outcome);
        }
    }

    /**
     * What a refusal says, less the message of a JDK exception it ends with: the JVM drops those
     * messages from exceptions it throws often (OmitStackTraceInFastThrow: a NullPointerException
     * thrown for the thousandth time says nothing of what was null), so the second decoding of the
     * same bytes may say less than the first.
     */
    static String said(HopFailure f) {
        return f.code() + ": " + String.valueOf(f.getMessage())
                .replaceAll("(?s)(java\\.lang\\.\\w+(Exception|Error)): .*$", "$1");
    }

    static void checkMessage(Object message) {
        switch (message) {
            case FrameDecoder.MalformedFrame m -> checkMalformed(m.reason());
            case FrameDecoder.Refused r -> { } // a typed refusal: the node counts it and closes if it must
            case FrameDecoder.VersionMismatch v -> { } // a HELLO without a common version: refused, closed
            case Hello h -> { }
            case ChainRequest r -> { }
            case ChainResultFrame r -> { }
            case ChainErrorFrame e -> { }
            case ReplyFrame r -> { }
            case QuietFrame q -> { }
            case CancelFrame c -> { }
            case HeartbeatFrame f -> { }
            case WindowUpdateFrame w -> { }
            case TxFrames.TxFrame t -> { }
            case io.rpcc.core.internal.wire.PingFrame p -> { } // (no seed had one: the stream target never met one)
            case io.rpcc.core.internal.wire.GoAwayFrame g -> { }
            default -> fail("not an rpcc message: " + message.getClass());
        }
    }

    static void checkMalformed(HopFailure e) {
        assertEquals(ChainErrorCode.MALFORMED_FRAME, e.code(), e::toString);
        assertTrue(e.getMessage() != null && !e.getMessage().isBlank(), "a refusal without a reason");
    }

    /** A user value that could not be read: malformed, or of a type id this node has not registered (that id given). */
    static void checkUnreadableValue(HopFailure e) {
        if (e.code() == ChainErrorCode.UNREGISTERED_TYPE) {
            assertNotNull(e.fields().typeId(), e::toString);
            return;
        }
        checkMalformed(e);
    }

    /**
     * Re-encodes a decoded message: the sender may refuse it with a typed failure (a value that the
     * frame encoded more loosely than rpcc would, such as elements that take no bytes); if it sends
     * it, the receiver must read back an equal message.
     */
    static void checkRoundTrip(Object message) {
        ByteBuf encoded;
        try {
            encoded = WIRE.encode(message, REENCODE_MAX_FRAME);
        } catch (HopFailure e) {
            assertTrue(e.getMessage() != null && !e.getMessage().isBlank(), "a refusal without a reason");
            return;
        }
        Object again;
        try {
            encoded.skipBytes(4); // the length field
            again = WIRE.decode(encoded);
        } finally {
            encoded.release();
        }
        assertNull(decodeError(again), () -> "a re-encoded frame does not decode: " + decodeError(again));
        // a REPLY's size is the bytes it took on the wire (what it costs of its chain's reply window):
        // a frame encoded more loosely than rpcc would (longer varints, say) takes more than its re-encoding
        Object expected = message instanceof ReplyFrame r && again instanceof ReplyFrame a
                ? new ReplyFrame(r.chain(), r.branch(), r.stream(), r.seq(), r.value(), r.decodeError(), a.size())
                : message;
        if (!StructuralEquality.equal(expected, again)) {
            fail("a decoded frame changed in a round trip:\n  " + message + "\n  " + again);
        }
    }

    static HopFailure decodeError(Object message) {
        return switch (message) {
            case ChainRequest r -> r.decodeError();
            case ChainResultFrame r -> r.decodeError();
            case ReplyFrame r -> r.decodeError();
            default -> null;
        };
    }

    static boolean isUserValue(RecordComponent c) {
        return c.getType() == Object.class || c.getType() == ChainState.class;
    }

    static Object read(RecordComponent c, Object record) {
        try {
            return c.getAccessor().invoke(record);
        } catch (ReflectiveOperationException e) {
            throw new AssertionError(e);
        }
    }

    static void count(String target) {
        EXECUTED.get(target).incrementAndGet();
    }

    @BeforeAll
    static void startCounting() {
        for (String target : List.of("frameBody", "frameStream", "userValue")) {
            EXECUTED.put(target, new AtomicLong());
        }
        startNanos = System.nanoTime();
    }

    /** Prints and records how many inputs each target ran, for {@code ./rpcc fuzz}'s summary. */
    @AfterAll
    static void reportCounts() {
        double seconds = (System.nanoTime() - startNanos) / 1e9;
        StringBuilder report = new StringBuilder();
        EXECUTED.forEach((target, n) -> {
            if (n.get() > 0) {
                report.append(String.format("fuzz target %s: %d inputs in %.1f s%n", target, n.get(), seconds));
            }
        });
        System.out.print(report);
        try {
            Path dir = Path.of("target", "fuzz-stats");
            Files.createDirectories(dir);
            // a file per JVM: the targets fuzz in JVMs of their own, at once
            Files.writeString(dir.resolve(WireFuzz.class.getSimpleName() + "-" + ProcessHandle.current().pid() + "-"
                    + System.currentTimeMillis() + ".txt"), report);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    // ---------------------------------------------------------------- seeds

    /** A fixed secret, so that seeds are the same on every run. */
    static final ChainSecret SECRET = new ChainSecret(0x0123456789abcdefL, 0x0fedcba987654321L);
    static final Map<Carrier, Object> TEMPLATES = new LinkedHashMap<>();
    static final Map<Carrier, byte[]> PREFIXES = new LinkedHashMap<>();

    static {
        TEMPLATES.put(Carrier.REQUEST, new ChainRequest(header(), null, ChainState.empty(), null));
        TEMPLATES.put(Carrier.RESULT, new ChainResultFrame(new ChainKey(7, SECRET), List.of("a", "b"), List.of(),
                List.of(), null, Credit.ONE.half(), null));
        TEMPLATES.put(Carrier.REPLY, new ReplyFrame(new ChainKey(3, SECRET), BranchId.root(), new ReplyStream(2, "b"), 0,
                null, null));
        // The template's encoding ends with its empty user values: params null and no state (2
        // bytes) for a REQUEST, one null value for the others.
        TEMPLATES.forEach((carrier, template) -> {
            byte[] body = body(template);
            PREFIXES.put(carrier, Arrays.copyOf(body, body.length - (carrier == Carrier.REQUEST ? 2 : 1)));
        });
    }

    static ChainHeader header() {
        return new ChainHeader(new ChainIdentity(42, SECRET, new NodeAddress("client-1", "127.0.0.1", 4000), 1),
                new ChainSoFar(3, List.of("a", "b"), List.of(new ConsoleLine(1, "a", "chaining", "hi")),
                        List.of(new HopTiming(1, "a", "f", 1, 2, 3, 4, "a")), Metadata.empty().with("tenant",
                        "acme")), "lookup", ChainingFunctionSource.java("public class X {}"), Credit.ONE.half().half(),
                new ReturnRoute(new NodeAddress("client-1", "127.0.0.1", 4000), List.of(), BranchId.root()),
                        new ChainLimits(2000, 1_500_000_000L, HeartbeatBudget.NONE));
    }

    /** A message's frame without its length field. */
    static byte[] body(Object message) {
        ByteBuf frame = WIRE.encode(message, REENCODE_MAX_FRAME);
        try {
            frame.skipBytes(4);
            byte[] bytes = new byte[frame.readableBytes()];
            frame.readBytes(bytes);
            return bytes;
        } finally {
            frame.release();
        }
    }

    /** User values of every built-in kind and of the registered records. */
    static List<Object> sampleValues() {
        Map<String, Object> attributes = new HashMap<>();
        attributes.put("when", Instant.ofEpochSecond(1_700_000_000, 5));
        attributes.put("amount", new BigDecimal("12.50"));
        attributes.put("big", BigInteger.TWO.pow(100));
        attributes.put("id", new UUID(1, 2));
        attributes.put("set", Set.of(1, 2, 3));
        attributes.put("zone", ZonedDateTime.of(2024, 1, 2, 3, 4, 5, 6, ZoneId.of("Europe/Paris")));
        attributes.put("day", LocalDate.of(2024, 2, 29));
        attributes.put("took", Duration.ofMillis(1500));
        attributes.put("sorted", new TreeMap<>(Map.of("a", 1L, "b", 2.5)));
        return List.of(
                "text", 42, -7L, 1.5, true, 'c',
                new Order("A-1", 3, List.of("x", "y")),
                new Blob("blob", new byte[] {1, 2, 3}, attributes),
                new Box(new Box(List.of(new Box(null), Map.of("k", new int[] {1, 2})))),
                new ArrayList<>(List.of("a", 1, new long[] {5}, new String[] {"s", null})),
                new Object[] {new double[] {0.5}, new char[] {'x'}, List.of()});
    }

    static Stream<byte[]> frameBodies() {
        List<Object> messages = new ArrayList<>();
        messages.add(new Hello("node", "10.0.0.1", 7000, 1 << 20));
        messages.addAll(TEMPLATES.values());
        for (Object value : sampleValues()) {
            messages.add(new ChainRequest(header(), value, ChainState.of("v", value, "n", null), null));
            messages.add(new ChainResultFrame(new ChainKey(7, SECRET), List.of("a"), List.of(), List.of(), value,
                    Credit.ONE, null));
            messages.add(new ReplyFrame(new ChainKey(3, SECRET), BranchId.root(), new ReplyStream(2, "b"), 0, value,
                    null));
        }
        messages.add(new ChainErrorFrame(9, SECRET, ChainErrorCode.HOP_UNREACHABLE, new ChainFailure("n", "m", "h", 2,
                List.of("a", "h"), List.of("d"), List.of(new ConsoleLine(1, "a", "s", "t")), List.of()),
                Credit.ONE.half()));
        // a chain's credential (header field 21) and a sub-chain creator's (in its return point): fixed
        // bytes, not a real signature, so that the seeds are the same on every run
        ChainCredential credential = new ChainCredential(1_700_000_000_000L, 2000,
                new ChainCredential.FirstHop(1, "s1", "lookup"), new byte[] {1, 2, 3, 4, 5, 6, 7, 8},
                List.of(new byte[] {0x30, 0x03, 0x02, 0x01, 0x01}, new byte[] {0x30, 0x00}));
        ChainHeader signed = header().withCredential(credential);
        messages.add(new ChainRequest(signed, "p", ChainState.empty(), null));
        messages.add(new ChainRequest(signed.with(signed.chainingFunction(), List.of(new ReturnPoint(
                new NodeAddress("creator", "127.0.0.2", 4001), 9, true).withCreatorCredential(credential))), "p",
                ChainState.empty(), null));
        messages.add(new QuietFrame(4, SECRET, Credit.ONE.half().half().half()));
        messages.add(new CancelFrame(5, SECRET, "client-1", 1_500_000_000L));
        // an atomic chain: the stamp in the header (field 23) and the commit protocol's frames
        messages.add(new ChainRequest(header().withTx(new TxStamp(true, 17, -3)), "p", ChainState.empty(), null));
        messages.add(new TxFrames.Vote(new io.rpcc.core.internal.wire.ChainKey(6, SECRET), 1, Credit.ONE.half().half(), new NodeAddress("s1", "127.0.0.1", 4001), 2,
                new TxFrames.Ballot(true, null, 99, 3)));
        messages.add(new TxFrames.Vote(new io.rpcc.core.internal.wire.ChainKey(6, SECRET), 2, Credit.ONE.half(), new NodeAddress("s2", "127.0.0.1", 4002), 1,
                new TxFrames.Ballot(false, "no", 100, 0)));
        messages.add(new TxFrames.Decide(6, SECRET, "client-1", 1, true, null));
        messages.add(new TxFrames.Decide(6, SECRET, "client-1", 2, false, "wounded"));
        messages.add(new TxFrames.DecideAck(6, SECRET, 1, "s1", 101, 3));
        messages.add(new TxFrames.Wound(6, SECRET, 1, "s2", "client-2/4#1"));
        messages.add(new TxFrames.Query(6, SECRET, "client-1", 1, "s1"));
        messages.add(new TxFrames.Decide(6, SECRET, "client-1", 1, true, null, true));
        messages.add(io.rpcc.core.internal.wire.GoAwayFrame.IDLE_CONNECTION); // (protocol 10)
        return messages.stream().map(WireFuzz::body);
    }

    static Stream<byte[]> streams() {
        List<byte[]> frames = frameBodies().toList();
        ByteBuf all = Unpooled.buffer();
        try {
            all.writeByte(16); // reads of 17 bytes
            for (byte[] body : frames) {
                all.writeInt(body.length).writeBytes(body);
            }
            byte[] stream = new byte[all.readableBytes()];
            all.readBytes(stream);
            return Stream.of(stream, Arrays.copyOf(stream, Math.min(stream.length, 300)));
        } finally {
            all.release();
        }
    }

    static Stream<byte[]> userValues() {
        List<byte[]> seeds = new ArrayList<>();
        for (Object value : sampleValues()) {
            Map<Carrier, Object> messages = Map.of(
                    Carrier.REQUEST, new ChainRequest(header(), value, ChainState.of("v", value), null),
                    Carrier.RESULT, new ChainResultFrame(new ChainKey(7, SECRET), List.of("a", "b"), List.of(),
                            List.of(), value, Credit.ONE.half(), null),
                    Carrier.REPLY, new ReplyFrame(new ChainKey(3, SECRET), BranchId.root(), new ReplyStream(2, "b"), 0,
                            value, null));
            messages.forEach((carrier, message) -> {
                byte[] body = body(message);
                int prefix = PREFIXES.get(carrier).length;
                byte[] seed = new byte[1 + body.length - prefix];
                seed[0] = (byte) carrier.ordinal();
                System.arraycopy(body, prefix, seed, 1, body.length - prefix);
                seeds.add(seed);
            });
        }
        return seeds.stream();
    }
}
