package io.rpcc.function.java.internal;

import io.rpcc.core.spi.FunctionFailure;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;
import java.util.function.Consumer;

/**
 * Enforces the wall-time limit on every sandboxed Java invocation, whatever thread runs it. A
 * function that only runs its own code is stopped by its {@link Budget}'s checks; one stuck inside
 * a single JDK call (a huge multiplication, a sort, a search) runs no check, so this watchdog
 * thread ({@link JavaResources}) looks at every running invocation every {@value #PERIOD_MS} ms: past its deadline it
 * marks the budget violated, and {@value #GRACE_MS} ms later it <em>abandons</em> the invocation:
 * its hop fails at once with rule {@code wall-time} (through the hook the hop gave), the thread is
 * interrupted and left to finish its JDK call, after which its next check ends it and whatever it
 * returns is dropped. Abandoned threads still running are counted per node; while a node has
 * {@value #MAX_ABANDONED} of them, it refuses new sandboxed invocations (rule
 * {@code sandbox-capacity}) rather than adding threads for ever; other nodes in the JVM go on.
 */
final class SandboxWatchdog {
    /** Abandoned threads of one node still running beyond which it refuses new sandboxed invocations. */
    static final int MAX_ABANDONED = 16;
    static final long PERIOD_MS = 10;
    static final long GRACE_MS = 50;

    private static final Set<Invocation> RUNNING = ConcurrentHashMap.newKeySet();
    private static final com.sun.management.ThreadMXBean MX =
            (com.sun.management.ThreadMXBean) java.lang.management.ManagementFactory.getThreadMXBean();
    /** The thread running {@link #watch}, and whether it is parked because nothing runs. */
    private static volatile Thread watcher;
    private static volatile boolean idle;

    private SandboxWatchdog() {
    }

    /**
     * One watched invocation: running, then either ended by its thread or abandoned by the watchdog
     * (abandoning while the watchdog counts and interrupts it, then abandoned).
     */
    static final class Invocation {
        private static final int RUNNING = 0;
        private static final int ENDED = 1;
        private static final int ABANDONING = 2;
        private static final int ABANDONED = 3;

        private final Budget budget;
        private final Consumer<FunctionFailure> onAbandon;
        private final AtomicInteger abandonedRunning;
        private final AtomicInteger state = new AtomicInteger(RUNNING);

        private Invocation(Budget budget, Consumer<FunctionFailure> onAbandon, AtomicInteger abandonedRunning) {
            this.budget = budget;
            this.onAbandon = onAbandon;
            this.abandonedRunning = abandonedRunning;
        }

        /** Abandons the invocation unless it has ended; true if this call did. */
        boolean abandon() {
            if (!state.compareAndSet(RUNNING, ABANDONING)) {
                return false;
            }
            abandonedRunning.incrementAndGet();
            budget.violate(budget.wallTimeViolation());
            budget.thread().interrupt();
            state.set(ABANDONED); // only now may the thread's end() clear the interrupt
            return true;
        }
    }

    /**
     * Starts watching an invocation with {@code budget} (made on its thread); {@code onAbandon}
     * (may be null: then the invocation is only marked violated) reports the hop's failure if it is
     * abandoned; {@code abandonedRunning} counts the node's abandoned threads still running.
     *
     * @throws FunctionFailure with rule {@code sandbox-capacity} while too many of the node's abandoned threads run
     */
    static Invocation start(Budget budget, Consumer<FunctionFailure> onAbandon, AtomicInteger abandonedRunning) {
        int stuck = abandonedRunning.get();
        if (stuck >= MAX_ABANDONED) {
            throw FunctionFailure.sandboxViolation("sandbox-capacity", "this node refuses sandboxed chaining functions "
                    + "for now: " + stuck + " earlier invocations overran their wall time inside a JDK call and "
                    + "their threads still run; retry later", true);
        }
        Invocation inv = new Invocation(budget, onAbandon, abandonedRunning);
        RUNNING.add(inv);
        if (idle) { // read after the add: either the watchdog sees the invocation or this wakes it
            idle = false;
            LockSupport.unpark(watcher);
        }
        return inv;
    }

    /** Stops watching {@code inv}, on its own thread; false if it was abandoned (drop its outcome). */
    static boolean end(Invocation inv) {
        RUNNING.remove(inv);
        if (inv.state.compareAndSet(Invocation.RUNNING, Invocation.ENDED)) {
            return true;
        }
        while (inv.state.get() == Invocation.ABANDONING) {
            Thread.onSpinWait(); // the watchdog is between counting and interrupting: a few instructions
        }
        inv.abandonedRunning.decrementAndGet();
        Thread.interrupted(); // the watchdog's interrupt must not reach the thread's next task
        return false;
    }

    /**
     * The watchdog's loop, run by the thread {@link JavaResources} owns until it is interrupted.
     * While no invocation runs it is parked (a JVM with nodes but no sandboxed function running
     * wakes no thread every {@value #PERIOD_MS} ms).
     */
    static void watch() {
        watcher = Thread.currentThread();
        long grace = TimeUnit.MILLISECONDS.toNanos(GRACE_MS);
        while (true) {
            try {
                if (RUNNING.isEmpty()) {
                    idle = true;
                    if (RUNNING.isEmpty()) { // read after idle is set: see start()
                        LockSupport.park();
                    }
                    idle = false;
                    if (Thread.currentThread().isInterrupted()) {
                        return;
                    }
                    continue;
                }
                Thread.sleep(PERIOD_MS);
                long now = System.nanoTime();
                for (Invocation inv : RUNNING) {
                    if (!inv.budget.cpuBased()) { // measured from here on, if its own checks have not started to
                        inv.budget.baseCpu(MX.getThreadCpuTime(inv.budget.thread().threadId()), System.nanoTime());
                    }
                    long late = now - inv.budget.deadline(now);
                    if (late > 0) {
                        inv.budget.violate(inv.budget.wallTimeViolation());
                    }
                    if (late > grace && inv.onAbandon != null && inv.abandon()) {
                        RUNNING.remove(inv);
                        FunctionFailure failure = FunctionFailure.sandboxViolation("wall-time", "chaining function ran for "
                                + "more than " + TimeUnit.NANOSECONDS.toMillis(inv.budget.maxWallNanos())
                                + " ms" + inv.budget.clock().besidesWaits(now) + ", stuck in one JDK call; its thread "
                                + "was abandoned", false);
                        Thread.ofVirtual().name("rpcc-sandbox-abandon").start(() -> inv.onAbandon.accept(failure));
                    }
                }
            } catch (InterruptedException e) {
                return;
            } catch (RuntimeException e) {
                // a failing hook must not stop the watchdog
            }
        }
    }
}
