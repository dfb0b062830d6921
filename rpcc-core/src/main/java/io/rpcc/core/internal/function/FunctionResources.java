package io.rpcc.core.internal.function;

import io.rpcc.core.internal.lifecycle.SharedResource;
import io.rpcc.core.spi.FunctionThreads;
import java.util.concurrent.Executor;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;

/**
 * The threads chaining functions need, shared by the nodes of a JVM: a small compiler pool (so that
 * compiling never takes more than {@value #COMPILER_THREADS} cores however many nodes compile) and
 * a hold on the platform threads sandboxed functions of every language run on
 * ({@link FunctionThreads}, in the SPI, so that plug-ins reach them). Owned by the nodes together:
 * each {@link FunctionRuntime} takes a hold when its node starts and gives it up when the node
 * closes; the last one to close stops them all (see {@link SharedResource}). A plug-in holds what
 * it needs besides (the Java sandbox's watchdog, javac's file managers) from its compiler's
 * {@link io.rpcc.core.spi.FunctionCompiler#open()}.
 */
final class FunctionResources {
    /** At most this many chaining functions compile at once in the JVM. */
    static final int COMPILER_THREADS = 2;
    private static final SharedResource<FunctionResources> SHARED = new SharedResource<>("rpcc's chaining-function threads",
            FunctionResources::new, FunctionResources::stop);

    private final ExecutorService compilers;
    private final FunctionThreads.Hold sandbox;

    private FunctionResources() {
        ThreadPoolExecutor pool = new ThreadPoolExecutor(COMPILER_THREADS, COMPILER_THREADS, 30, TimeUnit.SECONDS,
                new LinkedBlockingQueue<>(), Thread.ofPlatform().name("rpcc-compiler-", 0).daemon(true).factory());
        pool.allowCoreThreadTimeOut(true);
        this.compilers = pool;
        this.sandbox = FunctionThreads.hold();
    }

    /** Takes a hold on the threads (starting them if nobody held them). */
    static void acquire() {
        SHARED.acquire();
    }

    /** Gives up a hold; the last one stops the threads (running work finishes, nothing new starts). */
    static void release() {
        SHARED.release();
    }

    /** The compiler pool. */
    static ExecutorService compilers() {
        return SHARED.current().compilers;
    }

    /** The platform threads sandboxed functions of every language run on. */
    static Executor sandbox() {
        SHARED.current();
        return FunctionThreads.executor();
    }

    private void stop() {
        compilers.shutdown();
        sandbox.close();
    }
}
