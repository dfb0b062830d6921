package io.rpcc.core.internal.function;

/**
 * How a node's pool of function-runner processes is sized ({@link FunctionRunnerPool}).
 *
 * @param runners the most invocations running in runner processes at once (each in a process of its own)
 * @param spares idle runners kept started, so that an invocation does not wait for a JVM to start
 * @param maxQueued the most invocations waiting for a runner; more are refused (a retryable failure)
 * @param heapMegabytes each runner's heap ({@code -Xmx}), in MiB
 */
@io.rpcc.core.spi.EngineSpi
public record RunnerPoolSettings(int runners, int spares, int maxQueued, int heapMegabytes) {
    /** The defaults: 2 runners, 2 spares, 32 waiting, 96 MiB heaps. */
    public static final RunnerPoolSettings DEFAULT = new RunnerPoolSettings(2, 2, 32, 96);

    /** Checks the settings. */
    public RunnerPoolSettings {
        if (runners < 1 || spares < 0 || maxQueued < 0 || heapMegabytes < 16) {
            throw new IllegalArgumentException("function runners: at least 1 runner, no negative spares or queue, "
                    + "at least 16 MiB of heap; got runners=" + runners + ", spares=" + spares + ", queue=" + maxQueued
                    + ", heap=" + heapMegabytes + " MiB");
        }
    }
}
