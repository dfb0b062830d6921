package io.rpcc.function.java.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.rpcc.core.ChainErrorCode;
import io.rpcc.core.SandboxLimits;
import io.rpcc.core.TypeRegistry;
import io.rpcc.core.internal.function.FunctionRuntime;
import io.rpcc.core.spi.FunctionFailure;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** The Java sandbox's runner, driven directly with tasks that are not instrumented. */
class SandboxTest {
    /** Holds the threads a started node would hold for its runtime. */
    private static FunctionRuntime held;

    /** The threads a started node would hold for its runtime (the shared ones, and the Java sandbox's watchdog). */
    @BeforeAll
    static void holdFunctionResources() {
        held = FunctionRuntime.forNode(TypeRegistry.empty(), SandboxLimits.DEFAULT, 1).open();
    }

    @AfterAll
    static void releaseFunctionResources() {
        held.close();
    }

    /**
     * On the virtual-thread path, an invocation the watchdog abandons (it interrupts the thread,
     * which here makes the task return at once, before the caller's own timeout) must still fail
     * its hop with {@code wall-time}: the hook there does nothing, so the caller reports it. (When
     * the caller's timeout comes first, the failure is {@code wall-time} too.)
     */
    @Test
    void anAbandonedInvocationOnTheVirtualPathFailsWithWallTime() throws Exception {
        Sandbox sandbox = new Sandbox(new SandboxLimits(Duration.ofSeconds(5), 64L << 20, Duration.ofMillis(30)));
        for (int i = 0; i < 5; i++) {
            CompletableFuture<Throwable> outcome = new CompletableFuture<>();
            Thread.ofVirtual().start(() -> {
                try {
                    sandbox.run(() -> {
                        Thread.sleep(10_000); // "stuck": the watchdog's interrupt at abandonment ends it
                        return "late";
                    });
                    outcome.complete(null);
                } catch (Throwable t) {
                    outcome.complete(t);
                }
            });
            Throwable t = outcome.get(10, TimeUnit.SECONDS);
            FunctionFailure f = assertInstanceOf(FunctionFailure.class, t, () -> "a typed failure, not " + t);
            assertEquals(ChainErrorCode.SANDBOX_VIOLATION, f.code());
            assertTrue(f.getMessage().contains("(rule: wall-time)"), f.getMessage());
        }
        // The caller may have its failure (its own timeout) a moment before the abandoned thread
        // finishes returning: wait for the count to drain, but not forever.
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (sandbox.abandonedRunning() != 0 && System.nanoTime() < deadline) {
            Thread.sleep(5);
        }
        assertEquals(0, sandbox.abandonedRunning(), "the abandoned threads have returned");
    }
}
