package io.rpcc.core.internal.wire;

import com.esotericsoftware.kryo.io.KryoBufferUnderflowException;
import com.esotericsoftware.kryo.KryoException;
import com.esotericsoftware.kryo.io.Input;
import java.util.function.IntUnaryOperator;

/**
 * A Kryo input over one frame that refuses lengths the frame cannot hold. A corrupt or hostile
 * frame could otherwise declare a string, array or collection of two billion elements and make the
 * node allocate gigabytes before noticing that the bytes are not there. ({@link BoundedBufferInput}
 * is the same over a direct buffer.)
 */
final class BoundedInput extends Input {

    /** Reads a byte of the frame at an absolute position (made once: a string read makes no lambda). */
    private final IntUnaryOperator at = p -> buffer[p];

    BoundedInput(byte[] buffer, int offset, int count) {
        super(buffer, offset, count);
    }

    /** The frame's byte at an absolute position (for {@link RecentFunctions}). */
    IntUnaryOperator bytes() {
        return at;
    }

    /**
     * The frame is all there is (no stream behind it): too few bytes left is an underflow, whatever
     * the size of the array or buffer the frame sits in.
     */
    @Override
    protected int require(int required) {
        int remaining = limit - position;
        if (remaining < required) {
            throw new KryoBufferUnderflowException("Buffer underflow.");
        }
        return remaining;
    }

    @Override
    public String readString() {
        checkStringLength();
        String kept = RecentNames.lookUp(position, limit, at);
        if (kept != null) {
            setPosition(position + kept.length()); // (a ByteBufferInput keeps its buffer's position in step)
            return kept;
        }
        int start = position;
        String read = super.readString();
        RecentNames.keep(read, start, limit, at);
        return read;
    }

    @Override
    public StringBuilder readStringBuilder() {
        checkStringLength();
        return super.readStringBuilder();
    }

    private void checkStringLength() {
        checkStringLength(position, limit, at);
    }

    /**
     * Kryo writes short ASCII strings self-delimited, others as a flagged varint (first byte: bit 7
     * UTF-8 flag, bit 6 "more", 6 value bits; then up to 4 bytes of 7 bits) holding the char count + 1.
     * This decodes that varint at {@code position} (of bytes up to {@code limit}, read by {@code at})
     * exactly as Kryo will and refuses counts the frame cannot hold.
     */
    static void checkStringLength(int position, int limit, IntUnaryOperator at) {
        if (position >= limit) {
            return; // let Kryo report the underflow
        }
        int p = position;
        int b = (byte) at.applyAsInt(p++);
        if ((b & 0x80) == 0) {
            return; // ASCII, ends at the byte with its high bit set: bounded by the frame
        }
        int result = b & 0x3F;
        if ((b & 0x40) != 0) {
            for (int shift = 6; shift <= 27; shift += 7) {
                if (p >= limit) {
                    return; // Kryo will report the underflow before allocating
                }
                b = (byte) at.applyAsInt(p++);
                result |= (b & 0x7F) << shift;
                if ((b & 0x80) == 0) {
                    break;
                }
            }
        }
        int chars = result - 1; // Kryo's char count, with Kryo's int overflow: MIN_VALUE - 1 is MAX_VALUE
        if (chars > limit - p) { // a negative one fails without allocating
            throw new KryoException("corrupt string length " + chars + " (" + (limit - p) + " bytes left in the frame)");
        }
    }
}
