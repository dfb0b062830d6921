package io.rpcc.core.internal.wire;

import com.esotericsoftware.kryo.io.Input;
import io.rpcc.core.ChainingFunctionSource;
import io.rpcc.core.FunctionLanguage;
import java.nio.ByteBuffer;
import java.util.Arrays;
import java.util.function.IntUnaryOperator;

/**
 * The chaining functions a decoding thread read lately, to hand out again when a request carries
 * the same text: every hop of a chain carries its chaining function's text, and a hop would
 * otherwise decode it into a new string and hash it (its content id) each time. A text is looked up
 * by its bytes as Kryo wrote them (a length-prefixed string of up to {@link #MAX_BYTES} bytes), so a
 * hit is exactly the text a decode would give. The table is per thread, fixed in size (a newer text
 * takes the slot of an older one): a thread keeps at most {@code SLOTS × MAX_BYTES} bytes of text
 * twice (bytes and string), whatever a peer sends.
 */
final class RecentFunctions {
    /** The longest text kept, in encoded bytes. */
    static final int MAX_BYTES = 16 * 1024;
    /** Slots in each thread's table (a power of two). */
    private static final int SLOTS = 8;
    private static final ThreadLocal<Kept[]> TABLES = ThreadLocal.withInitial(() -> new Kept[SLOTS]);

    /** A text kept: its language, its bytes as encoded (from the length prefix on) and its source. */
    private record Kept(FunctionLanguage language, byte[] encoded, ChainingFunctionSource source) {
    }

    private RecentFunctions() {
    }

    /** The chaining function in {@code language} whose text is at {@code in}'s position. */
    static ChainingFunctionSource read(Input in, FunctionLanguage language) {
        IntUnaryOperator at = switch (in) {
            case BoundedBufferInput b -> b.bytes();
            case BoundedInput b -> b.bytes();
            default -> null;
        };
        int start = in.position();
        int limit = in.limit();
        long prefix = at == null ? -1 : prefix(start, limit, at);
        if (prefix < 0) {
            return ChainingFunctionSource.of(language, in.readString());
        }
        Kept[] table = TABLES.get();
        int slot = slot((int) prefix, (int) (prefix >>> 32), at);
        Kept kept = table[slot];
        if (kept != null && kept.language() == language && same(in, start, kept.encoded())) {
            // the bytes a decode of kept.source() read, from the length prefix to the last character
            in.setPosition(start + kept.encoded().length);
            return kept.source();
        }
        int end = end(start, limit, at);
        if (end < 0 || end - start > MAX_BYTES) {
            return ChainingFunctionSource.of(language, in.readString());
        }
        ChainingFunctionSource source = ChainingFunctionSource.of(language, in.readString());
        if (in.position() == end) {
            byte[] encoded = new byte[end - start];
            for (int i = 0; i < encoded.length; i++) {
                encoded[i] = (byte) at.applyAsInt(start + i);
            }
            table[slot] = new Kept(language, encoded, source);
        }
        return source;
    }

    /**
     * The length prefix of the Kryo string at {@code position}, if it is in Kryo's length-prefixed
     * form, not null or empty, of at most {@link #MAX_BYTES} characters whose bytes (at least one a
     * character) fit before {@code limit}: the number of characters in the high half, the index
     * after the prefix in the low half; else -1.
     */
    private static long prefix(int position, int limit, IntUnaryOperator at) {
        int p = position;
        if (p >= limit) {
            return -1;
        }
        int b = at.applyAsInt(p++);
        if ((b & 0x80) == 0) {
            return -1; // a short ASCII string: not a kept size
        }
        int count = b & 0x3F;
        if ((b & 0x40) != 0) {
            for (int shift = 6; ; shift += 7) {
                if (p >= limit || shift > 27) {
                    return -1;
                }
                b = at.applyAsInt(p++);
                count |= (b & 0x7F) << shift;
                if ((b & 0x80) == 0) {
                    break;
                }
            }
        }
        int chars = count - 1;
        if (chars < 1 || chars > MAX_BYTES || chars > limit - p) {
            return -1;
        }
        return (long) chars << 32 | p;
    }

    /**
     * Where the Kryo string at {@code position} ends (the index after its last byte) if it is in
     * Kryo's length-prefixed form, not null or empty, and whole before {@code limit}; else -1 (it is
     * read as usual).
     */
    private static int end(int position, int limit, IntUnaryOperator at) {
        long prefix = prefix(position, limit, at);
        if (prefix < 0) {
            return -1;
        }
        int p = (int) prefix;
        int chars = (int) (prefix >>> 32);
        for (int i = 0; i < chars; i++) {
            if (p >= limit || p - position > MAX_BYTES) {
                return -1;
            }
            int lead = (at.applyAsInt(p) & 0xFF) >> 4;
            int size = lead <= 7 ? 1 : lead == 12 || lead == 13 ? 2 : lead == 14 ? 3 : 0;
            if (size == 0) {
                return -1; // not a form this table reads: Kryo reads it
            }
            p += size;
        }
        return p <= limit ? p : -1;
    }

    /** Whether {@code in}'s bytes from {@code start} on begin with {@code encoded} (compared in bulk). */
    private static boolean same(Input in, int start, byte[] encoded) {
        int n = encoded.length;
        if (n > in.limit() - start) {
            return false;
        }
        return switch (in) {
            case BoundedBufferInput b -> b.getByteBuffer().slice(start, n).mismatch(ByteBuffer.wrap(encoded)) < 0;
            case BoundedInput b -> Arrays.equals(b.getBuffer(), start, start + n, encoded, 0, n);
            default -> false;
        };
    }

    /**
     * The slot of a text of {@code chars} characters whose bytes begin at {@code from}: a sample of
     * its first {@code chars} bytes (all within the text, whatever its characters' sizes).
     */
    private static int slot(int from, int chars, IntUnaryOperator at) {
        int h = chars;
        int step = Math.max(1, chars / 64);
        for (int p = from; p < from + chars; p += step) {
            h = 31 * h + at.applyAsInt(p);
        }
        return (h ^ (h >>> 8) ^ (h >>> 16)) & (SLOTS - 1);
    }
}
