package io.rpcc.core.internal.wire;

import com.esotericsoftware.kryo.KryoException;
import java.util.function.IntUnaryOperator;

/**
 * The layout of a string as Kryo writes it, checked in a frame's bytes without decoding it. Kryo
 * writes a string of 2 to 63 ASCII characters self-delimited (its last byte flagged), any other as
 * a flagged varint (first byte: bit 7 flag, bit 6 "more", 6 value bits; then up to 4 bytes of 7
 * bits, the fifth read whatever its high bit) holding the char count + 1 (0: null, 1: empty), then
 * each char in UTF-8 of 1 to 3 bytes.
 *
 * <p>Kryo's reader trusts that layout: a negative char count reaches {@code new String} (whose
 * error names the size of the reader's char buffer, which depends on what it read before), and a
 * byte that starts no 1-to-3-byte UTF-8 character leaves that char as whatever the reader's buffer
 * held before (another string's). Since a decoding thread hands out the strings it read lately
 * instead of decoding them again ({@link RecentNames}), what the reader read before differs from
 * one decoding of the same frame to the next: such a string is refused here, before Kryo reads it,
 * with the same reason whatever was read before and whether the frame is in a heap or a direct buffer.
 */
final class KryoStrings {

    private KryoStrings() {
    }

    /**
     * Where the string at {@code position} (bytes up to {@code limit}, read by {@code at}) ends: the
     * index just after its last byte, as Kryo's {@code readString} would leave its position.
     *
     * @throws KryoException if that is not a string Kryo writes or it does not end before {@code limit}
     *     (the reason says which; it names no absolute position, so it reads the same from any buffer)
     */
    static int end(int position, int limit, IntUnaryOperator at) {
        if (position >= limit) {
            throw new KryoException("corrupt string: the frame ends where a string starts");
        }
        if ((at.applyAsInt(position) & 0x80) == 0) { // ASCII: up to the byte with its high bit set
            for (int p = position + 1; p < limit; p++) {
                if ((at.applyAsInt(p) & 0x80) != 0) {
                    return p + 1;
                }
            }
            throw new KryoException("corrupt string: its ASCII text runs past the end of the frame");
        }
        return utf8End(position, limit, at);
    }

    /**
     * Checks the string at {@code position} as {@link #end} does if it is in Kryo's length-prefixed
     * form (its first byte flagged); an ASCII one is left to Kryo (bounded by the frame: Kryo reports
     * an unterminated one as an underflow), and so is a {@code position} at {@code limit}.
     *
     * @throws KryoException if it is not a string Kryo writes or it does not end before {@code limit}
     */
    static void checkLengthPrefixed(int position, int limit, IntUnaryOperator at) {
        if (position < limit && (at.applyAsInt(position) & 0x80) != 0) {
            utf8End(position, limit, at);
        }
    }

    private static int utf8End(int position, int limit, IntUnaryOperator at) {
        int p = position;
        int b = at.applyAsInt(p++);
        int result = b & 0x3F;
        if ((b & 0x40) != 0) {
            for (int shift = 6; shift <= 27; shift += 7) {
                if (p >= limit) {
                    throw new KryoException("corrupt string: its length runs past the end of the frame");
                }
                b = at.applyAsInt(p++);
                result |= (b & 0x7F) << shift;
                if ((b & 0x80) == 0) {
                    break;
                }
            }
        }
        int chars = result - 1; // Kryo's char count (-1: null, 0: empty), with Kryo's int overflow
        if (chars < -1 || chars > limit - p) { // at least a byte a char
            throw new KryoException("corrupt string length " + chars + " (" + (limit - p) + " bytes left in the frame)");
        }
        for (int i = 0; i < chars; i++) {
            if (p >= limit) {
                throw new KryoException("corrupt string: its " + chars + " characters run past the end of the frame");
            }
            int lead = at.applyAsInt(p) & 0xFF;
            int size = switch (lead >> 4) {
                case 0, 1, 2, 3, 4, 5, 6, 7 -> 1;
                case 12, 13 -> 2;
                case 14 -> 3;
                default -> throw new KryoException(String.format("corrupt string: its character %d of %d starts with"
                        + " byte 0x%02x, which starts no UTF-8 character of 1 to 3 bytes", i + 1, chars, lead));
            };
            p += size;
        }
        if (p > limit) {
            throw new KryoException("corrupt string: its " + chars + " characters run past the end of the frame");
        }
        return p;
    }
}
