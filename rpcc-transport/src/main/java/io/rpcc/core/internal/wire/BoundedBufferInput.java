package io.rpcc.core.internal.wire;

import com.esotericsoftware.kryo.io.KryoBufferUnderflowException;
import com.esotericsoftware.kryo.io.ByteBufferInput;
import java.nio.ByteBuffer;

/**
 * {@link BoundedInput} over a {@link ByteBuffer} (a frame in a direct buffer, read in place): a
 * Kryo input that refuses string lengths the frame cannot hold.
 */
final class BoundedBufferInput extends ByteBufferInput {

    BoundedBufferInput(ByteBuffer frame) {
        super(frame);
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
        BoundedInput.checkStringLength(position, limit, byteBuffer::get);
        return super.readString();
    }

    @Override
    public StringBuilder readStringBuilder() {
        BoundedInput.checkStringLength(position, limit, byteBuffer::get);
        return super.readStringBuilder();
    }
}
