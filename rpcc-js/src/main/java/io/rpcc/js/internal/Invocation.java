package io.rpcc.js.internal;

import io.rpcc.core.SandboxLimits;
import io.rpcc.core.spi.SandboxViolation;
import io.rpcc.core.spi.FunctionFailure;
import java.security.SecureRandom;
import java.util.SplittableRandom;
import java.util.concurrent.CancellationException;
import java.util.concurrent.atomic.AtomicReference;
import org.graalvm.polyglot.Context;

/**
 * One run of guest code (an invocation of a function, or the parse that compiles it): the context
 * it runs in, the watcher's cancellation, and the first sandbox rule it broke.
 *
 * <ul>
 *   <li>Cancelling never blocks the watcher: {@code Context.close(true)} waits until the guest
 *       reaches a safepoint, which a long built-in call (a huge {@code padEnd}, a parser on
 *       hostile input) reaches late, so the close runs on a thread of its own and the watcher goes
 *       on to report the violation at the limit.</li>
 *   <li>A cancellation that comes before the context exists is not lost: {@link #attach} then
 *       refuses to start.</li>
 *   <li>A refusal is recorded when it is made, so that a function catching the error it gets (a
 *       host exception in JavaScript) still ends its chain with the rule it broke.</li>
 * </ul>
 */
final class Invocation {
    private final long maxElements;
    private final AtomicReference<SandboxViolation> refused = new AtomicReference<>();
    private Context context;
    private boolean cancelled;
    private long elements;
    /** This invocation's own generator for {@code Math.random()} in a reused realm, made on first use. */
    private SplittableRandom random;
    private static final SecureRandom SEEDS = new SecureRandom();

    /** An invocation under {@code limits} ({@code null}: not sandboxed). */
    Invocation(SandboxLimits limits) {
        // about 32 bytes per converted element (a boxed number or a small string, and its slot)
        this.maxElements = limits == null ? Long.MAX_VALUE : Math.max(1024, limits.allocatedBytes() / 32);
    }

    /**
     * Makes {@code cx} the context that {@link #cancel} closes.
     *
     * @throws CancellationException if the watcher cancelled this invocation already (it reports why)
     */
    void attach(Context cx) {
        synchronized (this) {
            if (!cancelled) {
                context = cx;
                return;
            }
        }
        throw new CancellationException("cancelled before the guest code started");
    }

    /**
     * The guest code ended: a later {@link #cancel} closes nothing (the context may run the next
     * invocation by then).
     *
     * @return whether the context is still whole: false if the watcher cancelled this invocation
     */
    boolean detach() {
        synchronized (this) {
            context = null;
            return !cancelled;
        }
    }

    /**
     * A draw for {@code Math.random()} in a reused realm: from a generator of this invocation's own,
     * seeded from a {@link SecureRandom}, so no invocation learns or steers another's draws.
     */
    double random() {
        if (random == null) {
            random = new SplittableRandom(SEEDS.nextLong());
        }
        return random.nextDouble();
    }

    /** Whether a refusal was recorded (even one the function caught). */
    boolean refusedAny() {
        return refused.get() != null;
    }

    /** Cancels the guest code from the watcher's thread, without waiting for it to stop. */
    void cancel() {
        Context cx;
        synchronized (this) {
            cancelled = true;
            cx = context;
        }
        if (cx != null) {
            Thread.ofVirtual().name("rpcc-js-cancel").start(() -> {
                try {
                    cx.close(true);
                } catch (RuntimeException e) {
                    // closed already, or closing on the invocation's own thread: either way it stops
                }
            });
        }
    }

    /** Records a refusal of {@code rule} (the first one is reported) and returns it, to be thrown. */
    SandboxViolation refuse(String rule, String message) {
        SandboxViolation v = new SandboxViolation(rule, message);
        refused.compareAndSet(null, v);
        return v;
    }

    /**
     * Counts {@code n} more elements of a value being turned into Java values; over the share of
     * the memory limit that such a value may take, refuses it before it is built.
     */
    void convert(long n) {
        elements += n;
        if (n < 0 || elements > maxElements) {
            throw refuse("memory", "chaining function returned a value of more than " + maxElements
                    + " elements (arrays, members and their contents)");
        }
    }

    /** @throws FunctionFailure if a refusal was recorded, even one the function caught */
    void throwIfRefused() {
        SandboxViolation v = refused.get();
        if (v != null) {
            throw v.toFailure();
        }
    }
}
