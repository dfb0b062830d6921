package io.rpcc.js.internal;

import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;

/**
 * The {@link JsRealm}s of one compiler: an invocation takes an idle one (or makes one, or waits for
 * one), has it to itself, and gives it back only if it ended cleanly: it returned, or threw a plain
 * JavaScript error, with no sandbox rule broken and no cancellation by the watcher. A realm that was
 * cancelled, broke a rule, hit a resource limit or an internal error, or has run
 * {@value JsRealm#MAX_USES} invocations is closed instead.
 *
 * <p>At most {@code capacity} realms exist at once: locking a realm down walks every built-in (tens of
 * milliseconds of CPU), so a burst of chains waits for a realm (outside its functions' budgets)
 * rather than making one each and starving each other's functions of CPU.
 */
final class JsRealmPool {
    private static final long POLL_MS = 10;

    private final ArrayBlockingQueue<JsRealm> idle;
    private final Semaphore live;
    private final Supplier<JsRealm> maker;
    private final java.util.concurrent.atomic.AtomicLong made = new java.util.concurrent.atomic.AtomicLong();

    JsRealmPool(int capacity, Supplier<JsRealm> maker) {
        this.idle = new ArrayBlockingQueue<>(capacity);
        this.live = new Semaphore(capacity);
        this.maker = maker;
    }

    /** An idle realm, a new one if fewer than the capacity exist, or the next one given back. */
    JsRealm take() throws InterruptedException {
        while (true) {
            JsRealm r = idle.poll();
            if (r != null) {
                return r;
            }
            if (live.tryAcquire()) {
                try {
                    made.incrementAndGet();
                    return maker.get();
                } catch (RuntimeException | Error e) {
                    live.release();
                    throw e;
                }
            }
            r = idle.poll(POLL_MS, TimeUnit.MILLISECONDS); // or a permit freed by a discarded realm
            if (r != null) {
                return r;
            }
        }
    }

    /** How many realms this pool has made (for tests: a discarded realm is replaced by a new one). */
    long made() {
        return made.get();
    }

    /** Gives {@code realm} back after an invocation; {@code clean}: it ended as above. */
    void giveBack(JsRealm realm, boolean clean) {
        realm.unbind();
        if (!clean || realm.worn() || !idle.offer(realm)) {
            discard(realm);
        }
    }

    /** Closes {@code realm}, which is not to be used again, and makes room for a new one. */
    void discard(JsRealm realm) {
        realm.close();
        live.release();
    }

    /** Closes the idle realms (the compiler closed). */
    void clear() {
        for (JsRealm r = idle.poll(); r != null; r = idle.poll()) {
            discard(r);
        }
    }
}
