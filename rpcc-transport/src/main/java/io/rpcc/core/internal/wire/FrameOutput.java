package io.rpcc.core.internal.wire;

import com.esotericsoftware.kryo.io.KryoBufferOverflowException;
import com.esotericsoftware.kryo.io.Output;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import java.io.OutputStream;

/**
 * Where one frame is encoded: a Kryo {@link Output} with a small buffer of its own (reused from a
 * pool, so encoding allocates no growing array) in front of a pooled {@link ByteBuf} of the channel's
 * allocator. A frame that fits in that buffer is copied once into a buffer of exactly its size; a
 * larger one streams into a buffer that grows up to the frame limit, past which the write fails
 * with a {@link KryoBufferOverflowException} (a {@link io.rpcc.core.ChainErrorCode#FRAME_TOO_LARGE} failure, as before).
 *
 * <p>The buffers are heap buffers (the socket copies them into its direct ones as it writes):
 * frames are encoded on the threads of hops, often virtual threads. With direct buffers taken
 * there, a node that stopped reading a deaf peer's requests ({@code ReadPauses}) still queued more
 * than the write-queue limit for it (ReadPauseTest, twice in runs beside the other transport tests;
 * not with heap buffers). Why was not pinned down.
 */
final class FrameOutput extends OutputStream {
    /** Bytes a frame is encoded in before it goes to the allocator's buffer. */
    static final int BUFFER_BYTES = 4096;
    private static final SlotPool<FrameOutput> POOL = new SlotPool<>(64, FrameOutput::new);

    final Output out = new Output(BUFFER_BYTES, -1);
    private ByteBufAllocator alloc;
    private int maxBytes;
    private ByteBuf target;

    static FrameOutput obtain(ByteBufAllocator alloc, int maxFrameSize) {
        FrameOutput f = POOL.obtain();
        f.alloc = alloc;
        f.maxBytes = maxFrameSize + 4; // (the length prefix is not part of the frame's size)
        f.out.setOutputStream(f);
        return f;
    }

    /**
     * The encoded frame, its length prefix set (the caller owns it); the output goes back to the pool.
     * If it throws, the caller must still {@link #abandon} it.
     */
    ByteBuf finish() {
        ByteBuf frame;
        if (target == null) { // all of it in the output's buffer: one buffer of the exact size
            int size = out.position();
            checkRoom(size);
            frame = alloc.heapBuffer(size, size);
            frame.writeBytes(out.getBuffer(), 0, size);
        } else {
            out.flush();
            frame = target;
            target = null;
        }
        frame.setInt(frame.readerIndex(), frame.readableBytes() - 4);
        recycle();
        return frame;
    }

    /** Gives up the frame (an encoding failure) and returns the output to the pool. */
    void abandon() {
        recycle();
    }

    private void recycle() {
        if (target != null) {
            target.release();
            target = null;
        }
        out.setOutputStream(null);
        alloc = null;
        if (out.getBuffer().length <= BUFFER_BYTES) { // (a buffer Kryo grew is not kept)
            POOL.free(this);
        }
    }

    private void checkRoom(long size) {
        if (size > maxBytes) {
            throw new KryoBufferOverflowException("frame of " + (size - 4) + " bytes over the limit of " + (maxBytes - 4));
        }
    }

    @Override
    public void write(byte[] b, int off, int len) {
        if (len == 0) {
            return;
        }
        checkRoom((target == null ? 0L : target.writerIndex()) + len);
        if (target == null) {
            target = alloc.heapBuffer(Math.min(maxBytes, Math.max(2 * BUFFER_BYTES, 2 * len)), maxBytes);
        }
        target.writeBytes(b, off, len);
    }

    @Override
    public void write(int b) {
        write(new byte[] {(byte) b}, 0, 1);
    }
}
