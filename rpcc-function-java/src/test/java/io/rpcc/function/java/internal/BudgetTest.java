package io.rpcc.function.java.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;

import io.rpcc.core.SandboxLimits;
import io.rpcc.core.spi.WallClock;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/**
 * The CPU-time limit of a sandboxed invocation: time before the CPU-time baseline counts as CPU
 * time used, but no more than {@link Budget#MAX_UNMEASURED_NANOS}: a stall of the JVM (a
 * garbage-collection pause, a loaded machine) before the baseline is not the function's CPU time.
 */
class BudgetTest {
    private static final SandboxLimits LIMITS = new SandboxLimits(Duration.ofMillis(100), 64L << 20, Duration.ofSeconds(10));

    private static Budget budget() {
        return new Budget(LIMITS, new WallClock(System.nanoTime(), LIMITS.wallTime().toNanos()));
    }

    @Test
    void aStallBeforeTheBaselineIsNotCountedAsCpuTime() throws Exception {
        Budget b = budget();
        Thread.sleep(400); // the thread does not run, as in a pause of the JVM: before, 400 ms were counted
        b.check(true); // the baseline: at most MAX_UNMEASURED_NANOS counted
        assertNull(b.violation(), () -> "a stall counted as CPU time: " + b.violation().getMessage());
        Thread.sleep(400);
        b.check(true);
        assertNull(b.violation(), "sleeping after the baseline uses no CPU time either");
    }

    @Test
    void aFunctionThatBurnsCpuIsStillStoppedAtItsLimit() {
        Budget b = budget();
        b.check(true);
        long start = System.nanoTime();
        double x = 0;
        while (b.violation() == null && System.nanoTime() - start < 5_000_000_000L) {
            for (int i = 0; i < 100_000; i++) {
                x += Math.sqrt(i + x);
            }
            b.check(true);
        }
        assertNotNull(b.violation(), "burned 5 s of wall time without reaching 100 ms of CPU time (" + x + ")");
        assertEquals("cpu-time", b.violation().rule());
    }

    @Test
    void theCapIsAFewWatchdogPeriods() {
        assertEquals(5 * SandboxWatchdog.PERIOD_MS * 1_000_000, Budget.MAX_UNMEASURED_NANOS);
    }
}
