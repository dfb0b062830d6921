package io.rpcc.core.internal.wire;

import com.esotericsoftware.kryo.io.KryoBufferUnderflowException;
import com.esotericsoftware.kryo.io.Input;
import java.util.function.IntUnaryOperator;

/**
 * A Kryo input over one frame that refuses lengths the frame cannot hold. A corrupt or hostile
 * frame could otherwise declare a string, array or collection of two billion elements and make the
 * node allocate gigabytes before noticing that the bytes are not there. ({@link BoundedBufferInput}
 * is the same over a direct buffer.) A string's length and characters are checked before Kryo reads
 * it ({@link KryoStrings}).
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

    /** Refuses a string Kryo would misread ({@link KryoStrings}): a bad length or character. */
    private void checkStringLength() {
        KryoStrings.checkLengthPrefixed(position, limit, at);
    }
}
