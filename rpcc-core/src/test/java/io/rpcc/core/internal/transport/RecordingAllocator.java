package io.rpcc.core.internal.transport;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.AbstractByteBufAllocator;
import io.netty.buffer.UnpooledHeapByteBuf;
import java.util.ArrayList;
import java.util.List;

/**
 * An unpooled heap allocator that remembers every buffer it made, so a test can check that all of
 * them were released. Netty's leak detector does this only when buffers are garbage collected, and
 * at PARANOID level records a stack trace on every access, which slows a fuzz target a hundredfold.
 */
final class RecordingAllocator extends AbstractByteBufAllocator {
    private final List<ByteBuf> made = new ArrayList<>();

    @Override
    protected ByteBuf newHeapBuffer(int initialCapacity, int maxCapacity) {
        ByteBuf buffer = new UnpooledHeapByteBuf(this, initialCapacity, maxCapacity); // not leak-tracked
        made.add(buffer);
        return buffer;
    }

    @Override
    protected ByteBuf newDirectBuffer(int initialCapacity, int maxCapacity) {
        return newHeapBuffer(initialCapacity, maxCapacity);
    }

    @Override
    public boolean isDirectBufferPooled() {
        return false;
    }

    /** The buffers made and not yet released. */
    List<ByteBuf> unreleased() {
        return made.stream().filter(b -> b.refCnt() > 0).toList();
    }
}
