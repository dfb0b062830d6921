package io.rpcc.core.internal.wire;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.Collections;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/** The lock-free pool behind a node's Kryo instances and frame inputs and outputs. */
class SlotPoolTest {
    @Test
    void givesBackWhatWasFreedAndMakesNewOnlyWhenEmpty() {
        AtomicInteger made = new AtomicInteger();
        SlotPool<Object> pool = new SlotPool<>(4, () -> {
            made.incrementAndGet();
            return new Object();
        });
        Object a = pool.obtain();
        Object b = pool.obtain();
        assertNotSame(a, b);
        assertEquals(2, made.get());
        pool.free(a);
        assertSame(a, pool.obtain(), "the idle one is reused");
        assertEquals(2, made.get());
    }

    @Test
    void keepsAtMostItsSlots() {
        AtomicInteger made = new AtomicInteger();
        SlotPool<Object> pool = new SlotPool<>(4, () -> {
            made.incrementAndGet();
            return new Object();
        });
        List<Object> out = new ArrayList<>();
        for (int i = 0; i < 10; i++) {
            out.add(pool.obtain());
        }
        out.forEach(pool::free); // 4 kept, 6 left to the collector
        Set<Object> again = Collections.newSetFromMap(new IdentityHashMap<>());
        for (int i = 0; i < 10; i++) {
            again.add(pool.obtain());
        }
        assertEquals(10, again.size());
        assertEquals(16, made.get(), "4 reused, 6 made anew");
    }

    @Test
    void neverHandsOneObjectToTwoThreadsAtOnce() throws InterruptedException {
        SlotPool<int[]> pool = new SlotPool<>(8, () -> new int[1]);
        Set<int[]> inUse = ConcurrentHashMap.newKeySet();
        AtomicInteger clashes = new AtomicInteger();
        int threads = 8;
        CountDownLatch done = new CountDownLatch(threads);
        for (int t = 0; t < threads; t++) {
            Thread.ofPlatform().start(() -> {
                try {
                    for (int i = 0; i < 50_000; i++) {
                        int[] x = pool.obtain();
                        if (!inUse.add(x)) {
                            clashes.incrementAndGet();
                        }
                        x[0]++;
                        inUse.remove(x);
                        pool.free(x);
                    }
                } finally {
                    done.countDown();
                }
            });
        }
        assertTrue(done.await(60, java.util.concurrent.TimeUnit.SECONDS));
        assertEquals(0, clashes.get());
    }
}
