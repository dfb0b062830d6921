package io.rpcc.core.internal.function;

/**
 * The resource budget of the sandboxed invocation running on the current (platform) thread.
 * Instrumented chaining-function code calls {@link #tick()} at every method entry and backward
 * jump, and {@link #array(int, int)} before allocating an array or asking the JDK for a sized
 * buffer. Every 16 ticks the budget compares the thread's allocated bytes and the elapsed time with
 * the limits, every 1024 ticks its CPU time; over a limit, it throws a {@link SandboxViolation},
 * and keeps throwing it at every later check. Public only because instrumented classes live in
 * other class loaders.
 */
public final class Budget {
    private static final ThreadLocal<Budget> CURRENT = new ThreadLocal<>();
    private static final com.sun.management.ThreadMXBean MX =
            (com.sun.management.ThreadMXBean) java.lang.management.ManagementFactory.getThreadMXBean();

    private final long maxAllocatedBytes;
    private final long maxCpuNanos;
    private final long maxWallNanos;
    private final long startAllocated;
    private final long startCpu;
    private final long startWall;
    private long ticks;
    private long arrayBytes;
    private volatile SandboxViolation violation;

    /** A budget for an invocation starting now on the current platform thread. */
    Budget(io.rpcc.core.SandboxLimits limits) {
        this.maxAllocatedBytes = limits.allocatedBytes();
        this.maxCpuNanos = limits.cpuTime().toNanos();
        this.maxWallNanos = limits.wallTime().toNanos();
        this.startAllocated = MX.getCurrentThreadAllocatedBytes();
        this.startCpu = MX.getCurrentThreadCpuTime();
        this.startWall = System.nanoTime();
    }

    /** Checks the limits now (also called once after the invocation returns). */
    void check(boolean cpu) {
        if (violation != null) {
            return;
        }
        long allocated = MX.getCurrentThreadAllocatedBytes() - startAllocated;
        if (startAllocated >= 0 && allocated > maxAllocatedBytes) {
            violate(new SandboxViolation("memory", "chaining function allocated " + allocated
                    + " bytes, over the limit of " + maxAllocatedBytes));
        } else if (System.nanoTime() - startWall > maxWallNanos) {
            violate(new SandboxViolation("wall-time", "chaining function ran for more than "
                    + maxWallNanos / 1_000_000 + " ms"));
        } else if (cpu && startCpu >= 0 && MX.getCurrentThreadCpuTime() - startCpu > maxCpuNanos) {
            violate(new SandboxViolation("cpu-time", "chaining function used more than "
                    + maxCpuNanos / 1_000_000 + " ms of CPU time"));
        }
    }

    static void enter(Budget b) {
        CURRENT.set(b);
    }

    static void exit() {
        CURRENT.remove();
    }

    void violate(SandboxViolation v) {
        if (violation == null) {
            violation = v;
        }
    }

    SandboxViolation violation() {
        return violation;
    }

    /** Called by instrumented code at method entries and backward jumps. */
    public static void tick() {
        Budget b = CURRENT.get();
        if (b == null) {
            return;
        }
        long t = ++b.ticks;
        if ((t & 15) == 0) {
            b.check((t & 1023) == 0);
        }
        if (b.violation != null) {
            throw b.violation;
        }
    }

    /**
     * Called by instrumented code before {@code new T[count]}: refuses an array that alone would
     * exceed the invocation's allocation limit, before the JVM tries to allocate it.
     */
    public static void array(int count, int elementBytes) {
        Budget b = CURRENT.get();
        if (b == null) {
            return;
        }
        if (b.violation != null) {
            throw b.violation;
        }
        long bytes = (long) Math.max(count, 0) * elementBytes;
        b.arrayBytes += bytes;
        if (bytes > b.maxAllocatedBytes || b.arrayBytes > b.maxAllocatedBytes) {
            b.violate(new SandboxViolation("memory", "chaining function allocated an array of " + count
                    + " elements (" + bytes + " bytes), over the limit of " + b.maxAllocatedBytes + " bytes"));
            throw b.violation;
        }
    }
}
