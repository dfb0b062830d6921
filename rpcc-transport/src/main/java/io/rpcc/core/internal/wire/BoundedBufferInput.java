package io.rpcc.core.internal.wire;

import com.esotericsoftware.kryo.io.KryoBufferUnderflowException;
import com.esotericsoftware.kryo.io.ByteBufferInput;
import java.nio.ByteBuffer;
import java.util.function.IntUnaryOperator;

/**
 * {@link BoundedInput} over a {@link ByteBuffer} (a frame in a direct buffer, read in place): a
 * Kryo input that refuses string lengths the frame cannot hold and strings Kryo would misread.
 */
final class BoundedBufferInput extends ByteBufferInput {
    /** The longest string buffer an input keeps when it goes back to the pool, in characters. */
    private static final int MAX_KEPT_CHARS = 4096;
    /** Inputs between frames: one per frame would be an input, its lambda and its string buffer per frame decoded. */
    private static final SlotPool<BoundedBufferInput> POOL = new SlotPool<>(64, BoundedBufferInput::new);
    private static final ByteBuffer NONE = ByteBuffer.allocate(0);

    /** Reads a byte of the frame at an absolute position (made once: a string read makes no lambda). */
    private final IntUnaryOperator at = p -> byteBuffer.get(p);

    private BoundedBufferInput() {
        super(NONE);
    }

    /** An input over {@code frame}, from the pool; give it back with {@link #recycle} once the frame is read. */
    static BoundedBufferInput over(ByteBuffer frame) {
        BoundedBufferInput in = POOL.obtain();
        in.setBuffer(frame);
        return in;
    }

    /**
     * This input's frame has been read (what was decoded holds no part of it): the input lets go of
     * the frame and goes back to the pool, unless a long string grew its string buffer.
     */
    void recycle() {
        setBuffer(NONE);
        if (chars.length <= MAX_KEPT_CHARS) {
            POOL.free(this);
        }
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
        KryoStrings.checkLengthPrefixed(position, limit, at);
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
        KryoStrings.checkLengthPrefixed(position, limit, at);
        return super.readStringBuilder();
    }
}
