package io.rpcc.core.internal.wire;

import com.esotericsoftware.kryo.KryoException;
import com.esotericsoftware.kryo.io.Input;

/**
 * A Kryo input over one frame that refuses lengths the frame cannot hold. A corrupt or hostile
 * frame could otherwise declare a string, array or collection of two billion elements and make the
 * node allocate gigabytes before noticing that the bytes are not there.
 */
final class BoundedInput extends Input {

    BoundedInput(byte[] buffer, int offset, int count) {
        super(buffer, offset, count);
    }

    @Override
    public String readString() {
        checkStringLength();
        return super.readString();
    }

    @Override
    public StringBuilder readStringBuilder() {
        checkStringLength();
        return super.readStringBuilder();
    }

    /** Kryo writes short ASCII strings self-delimited, others as a flagged varint char count + 1. */
    private void checkStringLength() {
        if (position >= limit) {
            return; // let Kryo report the underflow
        }
        int p = position;
        int b = buffer[p++];
        if ((b & 0x80) == 0) {
            return; // ASCII, ends at the byte with its high bit set: bounded by the frame
        }
        long value = b & 0x3F;
        if ((b & 0x40) != 0) {
            int shift = 6;
            do {
                if (p >= limit) {
                    return;
                }
                b = buffer[p++];
                value |= (long) (b & 0x7F) << shift;
                shift += 7;
            } while ((b & 0x80) != 0 && shift < 35);
        }
        long chars = value - 1;
        if (chars > limit - p) {
            throw new KryoException("corrupt string length " + chars + " (" + (limit - p) + " bytes left in the frame)");
        }
    }
}
