package io.rpcc.js.internal;

import io.rpcc.core.SandboxLimits;
import io.rpcc.core.spi.FunctionFailure;
import io.rpcc.core.spi.InvocationAbandoned;
import io.rpcc.core.spi.SandboxViolation;
import io.rpcc.core.spi.WallClock;
import java.util.Set;
import java.util.concurrent.Callable;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;
import java.util.function.Consumer;

/**
 * Watches JavaScript invocations that run on their caller's (platform) thread, instead of handing
 * each to a watched thread and back ({@link io.rpcc.core.spi.MonitoredExecution}, two thread
 * hand-offs and four reads of the thread's CPU time and allocation per invocation). One daemon
 * thread looks at every running invocation every {@value #PERIOD_MS} ms (and sleeps while none
 * runs): over its wall-time limit, or its thread's CPU time or allocation over theirs, it records
 * the violation and cancels the invocation ({@link Invocation#cancel}: {@code Context.close(true)},
 * which GraalJS delivers at the guest's next safepoint). The invocation's own thread checks once
 * more when the guest returns: its allocation (a cheap read of its own counter) and its wall time.
 * The thread's CPU time is read when the invocation starts (one system call), and again only once
 * the invocation has run for longer than the CPU-time limit, since a thread uses no more CPU time
 * than the time that passes. (Counting the time before a later first read as CPU time instead would
 * save that call, but fail an invocation whose thread a loaded machine left waiting for the limit.)
 *
 * <p>An invocation whose guest does not stop within {@value #GRACE_MS} ms of its cancellation (a
 * long built-in call reaches no safepoint) is abandoned if its hop gave a hook: the hop fails at
 * once with the violation, and the thread, whenever it comes back, throws
 * {@link InvocationAbandoned}. Without a hook its caller waits for the guest to stop.
 */
final class JsWatchdog {
    static final long PERIOD_MS = 5;
    static final long GRACE_MS = 1_000;

    private static final com.sun.management.ThreadMXBean MX =
            (com.sun.management.ThreadMXBean) java.lang.management.ManagementFactory.getThreadMXBean();
    private static final Set<Watch> RUNNING = ConcurrentHashMap.newKeySet();
    private static final Object START = new Object();
    private static volatile Thread watcher;
    private static volatile boolean idle;

    private JsWatchdog() {
    }

    /** One watched invocation on its thread. */
    private static final class Watch {
        private static final int RUNNING = 0;
        private static final int ENDED = 1;
        private static final int ABANDONED = 2;

        final Invocation invocation;
        final SandboxLimits limits;
        final WallClock clock;
        final Thread thread = Thread.currentThread();
        final long startNanos = System.nanoTime();
        final long startAllocated = MX.getCurrentThreadAllocatedBytes();
        final long startCpu = MX.getCurrentThreadCpuTime();
        final Consumer<FunctionFailure> onAbandon;
        final AtomicInteger state = new AtomicInteger(RUNNING);
        volatile SandboxViolation violation;
        volatile long violatedAt;

        Watch(Invocation invocation, SandboxLimits limits, Consumer<FunctionFailure> onAbandon) {
            this.invocation = invocation;
            this.limits = limits;
            this.onAbandon = onAbandon;
            this.clock = new WallClock(startNanos, limits.wallTime().toNanos());
        }

        /** The most CPU time the invocation can have used by {@code now}: its wall time (less excused waits). */
        long cpuBound(long now) {
            return Math.max(clock.elapsed(now), 0);
        }

        /** Records {@code v} (the first one counts) and cancels the guest; from the watchdog's thread. */
        void violate(SandboxViolation v, long now) {
            if (violation == null) {
                violatedAt = now;
                violation = v;
                invocation.cancel();
            }
        }
    }

    /**
     * Runs {@code task} (guest code of {@code invocation}) on the current platform thread within
     * {@code limits}; {@code onAbandon} (may be null) fails the hop if the guest does not stop after
     * its cancellation.
     *
     * @throws FunctionFailure with {@link io.rpcc.core.ChainErrorCode#SANDBOX_VIOLATION} if a limit was
     *     exceeded (transient, as {@link io.rpcc.core.spi.MonitoredExecution}'s)
     * @throws InvocationAbandoned if the invocation was abandoned and its hop failed already
     */
    static <T> T run(Invocation invocation, SandboxLimits limits, Consumer<FunctionFailure> onAbandon, Callable<T> task)
            throws Exception {
        Watch w = new Watch(invocation, limits, onAbandon);
        RUNNING.add(w);
        wake();
        w.clock.enter();
        T result;
        try {
            result = task.call();
        } catch (Exception e) {
            throw end(w, e);
        } catch (Error e) {
            throw end(w, e);
        } finally {
            WallClock.exit();
        }
        Exception failure = end(w, null);
        if (failure != null) {
            throw failure;
        }
        return result;
    }

    /**
     * Stops watching {@code w} on its thread; returns what the invocation ends with instead of
     * {@code thrown} (or of its result, if {@code thrown} is null; null: the result stands).
     */
    private static <E extends Throwable> Exception end(Watch w, E thrown) throws E {
        RUNNING.remove(w);
        if (!w.state.compareAndSet(Watch.RUNNING, Watch.ENDED)) {
            Thread.interrupted(); // nothing of the abandonment may reach the thread's next task
            return InvocationAbandoned.instance();
        }
        SandboxViolation v = w.violation;
        if (v == null) {
            v = check(w, System.nanoTime(), true);
        }
        if (v != null) {
            return FunctionFailure.sandboxViolation(v.rule(), v.reason(), true);
        }
        if (thrown == null) {
            return null;
        }
        if (thrown instanceof Exception e) {
            return e;
        }
        throw thrown;
    }

    /** A limit {@code w} exceeded at {@code now}, or null; {@code own}: on the invocation's thread. */
    private static SandboxViolation check(Watch w, long now, boolean own) {
        SandboxLimits limits = w.limits;
        if (w.clock.elapsed(now) > limits.wallTime().toNanos()) {
            return new SandboxViolation("wall-time", "chaining function ran for more than " + limits.wallTime().toMillis()
                    + " ms" + w.clock.besidesWaits(now));
        }
        long allocated = (own ? MX.getCurrentThreadAllocatedBytes() : MX.getThreadAllocatedBytes(w.thread.threadId()))
                - w.startAllocated;
        if (w.startAllocated >= 0 && allocated > limits.allocatedBytes()) {
            return new SandboxViolation("memory", "chaining function allocated " + allocated + " bytes, over the limit of "
                    + limits.allocatedBytes());
        }
        long maxCpu = limits.cpuTime().toNanos();
        if (w.cpuBound(now) <= maxCpu || w.startCpu < 0) {
            return null; // it cannot have used more CPU time than the time that passed (or it is not measured)
        }
        long cpu = (own ? MX.getCurrentThreadCpuTime() : MX.getThreadCpuTime(w.thread.threadId())) - w.startCpu;
        if (cpu > maxCpu) {
            return new SandboxViolation("cpu-time", "chaining function used more than " + limits.cpuTime().toMillis()
                    + " ms of CPU time");
        }
        return null;
    }

    private static void wake() {
        if (watcher == null) {
            synchronized (START) {
                if (watcher == null) {
                    watcher = Thread.ofPlatform().name("rpcc-js-watchdog").daemon(true).start(JsWatchdog::watch);
                }
            }
        }
        if (idle) { // read after the add: either the watchdog sees the invocation or this wakes it
            idle = false;
            LockSupport.unpark(watcher);
        }
    }

    private static void watch() {
        long grace = TimeUnit.MILLISECONDS.toNanos(GRACE_MS);
        while (true) {
            try {
                if (RUNNING.isEmpty()) {
                    idle = true;
                    if (RUNNING.isEmpty()) { // read after idle is set: see wake()
                        LockSupport.park();
                    }
                    idle = false;
                    continue;
                }
                Thread.sleep(PERIOD_MS);
                long now = System.nanoTime();
                for (Watch w : RUNNING) {
                    if (w.violation == null) {
                        SandboxViolation v = check(w, now, false);
                        if (v != null) {
                            w.violate(v, now);
                        }
                    } else if (now - w.violatedAt > grace && w.onAbandon != null
                            && w.state.compareAndSet(Watch.RUNNING, Watch.ABANDONED)) {
                        RUNNING.remove(w);
                        SandboxViolation v = w.violation;
                        FunctionFailure failure = FunctionFailure.sandboxViolation(v.rule(), v.reason()
                                + "; its guest code did not stop and its thread was abandoned", false);
                        Thread.ofVirtual().name("rpcc-js-abandon").start(() -> w.onAbandon.accept(failure));
                    }
                }
            } catch (InterruptedException e) {
                Thread.interrupted(); // the watchdog runs for the JVM's life
            } catch (RuntimeException e) {
                // a failing check or hook must not stop the watchdog
            }
        }
    }
}
