package io.rpcc.core;

import java.time.Duration;
import java.util.Objects;

/**
 * The resources one chaining-function invocation may use at a server (paper section 3.6). A
 * function that exceeds them ends its chain with a {@link SandboxViolationException} naming the
 * rule ({@code cpu-time}, {@code memory}, {@code wall-time}, {@code stack-depth}); the server goes
 * on serving.
 *
 * <pre>{@code
 * RpccServer.builder("pricing").sandbox(new SandboxLimits(Duration.ofMillis(100), 8 << 20, Duration.ofSeconds(1)));
 * }</pre>
 *
 * @param cpuTime CPU time per invocation (default 300 ms)
 * @param allocatedBytes bytes allocated per invocation (default 32 MiB)
 * @param wallTime elapsed time per invocation, which also covers a function that blocks without
 *     using CPU (default 2 s); the time a function spends in {@code preturn} waiting for a slow
 *     reader does not count, up to the node's reply write timeout in all per invocation
 */
public record SandboxLimits(Duration cpuTime, long allocatedBytes, Duration wallTime) {
    /** The defaults: 300 ms CPU, 32 MiB allocated, 2 s elapsed. */
    public static final SandboxLimits DEFAULT = new SandboxLimits(Duration.ofMillis(300), 32L << 20, Duration.ofSeconds(2));

    public SandboxLimits {
        Objects.requireNonNull(cpuTime, "cpuTime");
        Objects.requireNonNull(wallTime, "wallTime");
        if (cpuTime.isNegative() || cpuTime.isZero() || wallTime.isNegative() || wallTime.isZero() || allocatedBytes <= 0) {
            throw new IllegalArgumentException("sandbox limits must be positive: " + cpuTime + ", " + allocatedBytes
                    + " bytes, " + wallTime);
        }
    }
}
