package io.rpcc.core.internal.wire;

import java.util.concurrent.atomic.AtomicReferenceArray;
import java.util.function.Supplier;

/**
 * Idle objects of one kind (a node's Kryo instances, frame outputs, frame inputs) kept for reuse in
 * a small array of slots, without a lock. Every frame a node encodes or decodes takes such objects
 * and gives them back, from event loops and worker threads at once; a pool behind a lock (Kryo's
 * own, a {@code LinkedBlockingQueue}) made those threads queue for it. A thread looks for an idle
 * object from a slot of its own (by its id) onward and makes a new one if every slot is empty; an
 * object given back when every slot is full is left to the collector. At most as many are kept as
 * there are slots; as many are in use as threads encode or decode at once.
 *
 * @param <T> what is pooled
 */
final class SlotPool<T> {
    private final AtomicReferenceArray<T> slots;
    private final int mask;
    private final Supplier<T> create;

    /** A pool of at most {@code slots} idle objects (rounded up to a power of two), made by {@code create}. */
    SlotPool(int slots, Supplier<T> create) {
        int n = Integer.highestOneBit(Math.max(2, slots) - 1) << 1;
        this.slots = new AtomicReferenceArray<>(n);
        this.mask = n - 1;
        this.create = create;
    }

    /** An idle object, or a new one. */
    T obtain() {
        int start = start();
        for (int i = 0; i <= mask; i++) {
            int at = (start + i) & mask;
            T t = slots.getPlain(at);
            if (t != null && slots.compareAndSet(at, t, null)) {
                return t;
            }
        }
        return create.get();
    }

    /** Gives {@code t} back (the caller no longer uses it). */
    void free(T t) {
        int start = start();
        for (int i = 0; i <= mask; i++) {
            int at = (start + i) & mask;
            if (slots.getPlain(at) == null && slots.compareAndSet(at, null, t)) {
                return;
            }
        }
    }

    /** Where the calling thread starts looking: its id, spread over the slots. */
    private static int start() {
        long id = Thread.currentThread().threadId();
        return (int) (id ^ (id >>> 32)) * 0x9E37_79B9 >>> 16;
    }
}
