package io.rpcc.core.spi;

import io.rpcc.core.ChainContext;
import io.rpcc.core.SandboxLimits;
import java.lang.management.ManagementFactory;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * Runs guest code that cannot be instrumented (JavaScript in GraalJS) on a platform thread and
 * watches it from outside: every 5 ms the waiting thread compares that thread's CPU time, allocated
 * bytes and the elapsed time (less the time it waited in {@code preturn} for its chain's reader, see
 * {@link WallClock}) with the limits, and over a limit cancels the code (for GraalJS,
 * {@code Context.close(true)}). The chain then fails with a sandbox violation naming the rule.
 * For plug-ins whose guest code cannot carry its own checks (the Java sandbox instruments its
 * functions instead).
 */
public final class MonitoredExecution {
    private static final com.sun.management.ThreadMXBean MX =
            (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
    private static final long POLL_MS = 5;
    private static final long GRACE_NANOS = TimeUnit.SECONDS.toNanos(1);

    private MonitoredExecution() {
    }

    /**
     * Runs {@code task} within {@code limits}; {@code cancel} stops it from another thread.
     *
     * @throws FunctionFailure with {@link io.rpcc.core.ChainErrorCode#SANDBOX_VIOLATION} if a limit was
     *     exceeded (marked {@linkplain FunctionFailure#asTransient() transient}: a loaded node may stop
     *     what passes later)
     * @throws Exception what the task threw otherwise
     */
    public static <T> T run(Callable<T> task, SandboxLimits limits, Runnable cancel) throws Exception {
        ChainContext ctx = ChainContext.currentOrNull();
        // its wall time leaves out the time it waits in preturn for its chain's reader (see WallClock)
        WallClock clock = new WallClock(System.nanoTime(), limits.wallTime().toNanos());
        long[] start = {-1, 0, 0, -1, -1}; // thread id, cpu, allocated at start; cpu, allocated at the end
        // platform threads: CPU time and allocation are measurable there
        Future<T> f = FunctionThreads.submit(() -> {
            long id = Thread.currentThread().threadId();
            synchronized (start) {
                start[1] = MX.getThreadCpuTime(id);
                start[2] = MX.getThreadAllocatedBytes(id);
                start[0] = id;
            }
            clock.enter();
            try (var scope = ctx == null ? null : ctx.push()) {
                return task.call();
            } finally {
                WallClock.exit();
                synchronized (start) {
                    start[3] = MX.getThreadCpuTime(id);
                    start[4] = MX.getThreadAllocatedBytes(id);
                }
            }
        });
        SandboxViolation violation = null;
        long cancelledAt = 0;
        while (true) {
            try {
                T result = f.get(POLL_MS, TimeUnit.MILLISECONDS);
                if (violation == null) { // a burst between two polls still counts
                    violation = check(start, limits, clock, System.nanoTime());
                }
                if (violation != null) {
                    throw limitExceeded(violation);
                }
                return result;
            } catch (ExecutionException e) {
                if (violation != null) {
                    throw limitExceeded(violation);
                }
                Throwable cause = e.getCause();
                if (cause instanceof Exception ex) {
                    throw ex;
                }
                throw (Error) cause;
            } catch (TimeoutException e) {
                long now = System.nanoTime();
                if (violation == null) {
                    violation = check(start, limits, clock, now);
                    if (violation != null) {
                        cancelledAt = now;
                        cancel.run();
                    }
                } else if (now - cancelledAt > GRACE_NANOS) {
                    f.cancel(true); // it did not stop: abandon it, the chain must not wait
                    throw limitExceeded(violation);
                }
            }
        }
    }

    /** A limit was exceeded: a failure of the moment (a loaded node may stop a parse that passes later). */
    private static FunctionFailure limitExceeded(SandboxViolation violation) {
        return FunctionFailure.sandboxViolation(violation.rule(), violation.reason(), true);
    }

    private static SandboxViolation check(long[] start, SandboxLimits limits, WallClock clock, long nowNanos) {
        long id;
        long cpu0;
        long alloc0;
        long cpuEnd;
        long allocEnd;
        synchronized (start) {
            id = start[0];
            cpu0 = start[1];
            alloc0 = start[2];
            cpuEnd = start[3];
            allocEnd = start[4];
        }
        if (clock.elapsed(nowNanos) > limits.wallTime().toNanos()) {
            return new SandboxViolation("wall-time", "chaining function ran for more than " + limits.wallTime().toMillis()
                    + " ms" + clock.besidesWaits(nowNanos));
        }
        if (id < 0) {
            return null; // not started yet
        }
        long cpu = (cpuEnd >= 0 ? cpuEnd : MX.getThreadCpuTime(id)) - cpu0;
        if (cpu0 >= 0 && cpu > limits.cpuTime().toNanos()) {
            return new SandboxViolation("cpu-time", "chaining function used more than " + limits.cpuTime().toMillis()
                    + " ms of CPU time");
        }
        long allocated = (allocEnd >= 0 ? allocEnd : MX.getThreadAllocatedBytes(id)) - alloc0;
        if (alloc0 >= 0 && allocated > limits.allocatedBytes()) {
            return new SandboxViolation("memory", "chaining function allocated " + allocated + " bytes, over the limit of "
                    + limits.allocatedBytes());
        }
        return null;
    }
}
