package io.rpcc.core.spi;

import io.rpcc.core.internal.function.FunctionRuntime;
import java.util.concurrent.Callable;
import java.util.concurrent.Future;

/**
 * The platform threads sandboxed chaining functions of every language run on (the JVM measures CPU
 * time and allocation only for platform threads), shared by the nodes of a JVM and running while
 * one of them is open.
 */
public final class FunctionThreads {
    private FunctionThreads() {
    }

    /**
     * Runs {@code task} on a sandbox thread.
     *
     * @throws IllegalStateException if no node is open
     */
    public static <T> Future<T> submit(Callable<T> task) {
        return FunctionRuntime.sandboxThreads().submit(task);
    }
}
