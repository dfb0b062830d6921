package io.rpcc.js.internal;

import java.util.concurrent.ArrayBlockingQueue;
import java.util.function.Supplier;

/**
 * The idle {@link JsRealm}s of one compiler: an invocation takes one (or makes one), has it to
 * itself, and gives it back only if it ended cleanly: it returned, or threw a plain JavaScript
 * error, with no sandbox rule broken and no cancellation by the watcher. A realm that was cancelled,
 * broke a rule, hit a resource limit or an internal error, or has run {@value JsRealm#MAX_USES}
 * invocations is closed instead. At most {@code capacity} idle realms are kept.
 */
final class JsRealmPool {
    private final ArrayBlockingQueue<JsRealm> idle;
    private final Supplier<JsRealm> maker;

    JsRealmPool(int capacity, Supplier<JsRealm> maker) {
        this.idle = new ArrayBlockingQueue<>(capacity);
        this.maker = maker;
    }

    /** An idle realm, or a new one. */
    JsRealm take() {
        JsRealm r = idle.poll();
        return r != null ? r : maker.get();
    }

    /** Gives {@code realm} back after an invocation; {@code clean}: it ended as above. */
    void giveBack(JsRealm realm, boolean clean) {
        realm.unbind();
        if (!clean || realm.worn() || !idle.offer(realm)) {
            realm.close();
        }
    }

    /** Closes the idle realms (the compiler closed). */
    void clear() {
        for (JsRealm r = idle.poll(); r != null; r = idle.poll()) {
            r.close();
        }
    }
}
