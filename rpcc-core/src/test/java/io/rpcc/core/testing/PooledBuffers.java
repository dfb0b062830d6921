package io.rpcc.core.testing;

import static org.junit.jupiter.api.Assertions.fail;

import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.ByteBufAllocatorMetric;
import io.netty.buffer.ByteBufAllocatorMetricProvider;
import io.netty.buffer.PoolArenaMetric;
import io.netty.buffer.PooledByteBufAllocator;

/**
 * What Netty's default buffer allocator (the one every connection reads into) holds: memory in use
 * and, for the pooled allocator, buffers allocated and not released. A node that leaves buffers
 * behind when it closes moves these figures for good.
 *
 * @param allocator the default allocator's class
 * @param usedHeapBytes heap memory the allocator holds
 * @param usedDirectBytes direct memory the allocator holds
 * @param activeAllocations buffers allocated and not yet released ({@code -1}: the allocator does not say)
 */
public record PooledBuffers(String allocator, long usedHeapBytes, long usedDirectBytes, long activeAllocations) {

    /** The figures now. */
    public static PooledBuffers now() {
        ByteBufAllocator alloc = ByteBufAllocator.DEFAULT;
        long heap = -1;
        long direct = -1;
        if (alloc instanceof ByteBufAllocatorMetricProvider p) {
            ByteBufAllocatorMetric m = p.metric();
            heap = m.usedHeapMemory();
            direct = m.usedDirectMemory();
        }
        long active = -1;
        if (alloc instanceof PooledByteBufAllocator pooled) {
            active = 0;
            for (PoolArenaMetric a : pooled.metric().heapArenas()) {
                active += a.numActiveAllocations();
            }
            for (PoolArenaMetric a : pooled.metric().directArenas()) {
                active += a.numActiveAllocations();
            }
        }
        return new PooledBuffers(alloc.getClass().getSimpleName(), heap, direct, active);
    }

    /**
     * Waits (up to 10 s) until no more buffers are allocated than at {@code baseline} and the memory
     * held is at most {@code memorySlack} bytes over it (pools keep some memory for reuse); fails
     * with the figures if not.
     */
    public static PooledBuffers assertBackTo(PooledBuffers baseline, long memorySlack) {
        long deadline = System.nanoTime() + 10_000_000_000L;
        PooledBuffers now;
        do {
            now = now();
            boolean back = now.activeAllocations <= baseline.activeAllocations
                    && now.usedHeapBytes <= baseline.usedHeapBytes + memorySlack
                    && now.usedDirectBytes <= baseline.usedDirectBytes + memorySlack;
            if (back) {
                return now;
            }
            try {
                Thread.sleep(100);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                break;
            }
        } while (System.nanoTime() < deadline);
        fail("pooled buffers did not return to the baseline: before " + baseline + ", now " + now
                + " (memory slack " + memorySlack + " bytes)");
        return now;
    }
}
