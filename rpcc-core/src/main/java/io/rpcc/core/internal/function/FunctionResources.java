package io.rpcc.core.internal.function;

import io.rpcc.core.internal.lifecycle.SharedResource;
import java.io.IOException;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import javax.tools.StandardJavaFileManager;

/**
 * The threads and caches chaining functions need, shared by the nodes of a JVM: a small compiler
 * pool (so that compiling never takes more than {@value #COMPILER_THREADS} cores however many nodes
 * compile), javac's idle file managers (warm, but each holds the class path's jar files open), the
 * platform threads sandboxed functions run on, and the sandbox's watchdog. Owned by the nodes
 * together: each {@link FunctionRuntime} takes a hold when its node starts and gives it up when the
 * node closes; the last one to close stops them all (see {@link SharedResource}).
 */
final class FunctionResources {
    /** At most this many chaining functions compile at once in the JVM. */
    static final int COMPILER_THREADS = 2;

    /** Idle javac file managers kept at most. */
    private static final int IDLE_FILE_MANAGERS = 4;
    private static final SharedResource<FunctionResources> SHARED = new SharedResource<>("rpcc's chaining-function threads",
            FunctionResources::new, FunctionResources::stop);

    private final ExecutorService compilers;
    private final ExecutorService sandbox;
    private final Thread watchdog;
    private final Deque<StandardJavaFileManager> idleFileManagers = new ArrayDeque<>(); // guarded by this
    private boolean stopped; // guarded by this

    private FunctionResources() {
        ThreadPoolExecutor pool = new ThreadPoolExecutor(COMPILER_THREADS, COMPILER_THREADS, 30, TimeUnit.SECONDS,
                new LinkedBlockingQueue<>(), Thread.ofPlatform().name("rpcc-compiler-", 0).daemon(true).factory());
        pool.allowCoreThreadTimeOut(true);
        this.compilers = pool;
        this.sandbox = Executors.newCachedThreadPool(Thread.ofPlatform().name("rpcc-sandbox-", 0).daemon(true).factory());
        this.watchdog = Thread.ofPlatform().name("rpcc-sandbox-watchdog").daemon(true).start(SandboxWatchdog::watch);
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
    static ExecutorService sandbox() {
        return SHARED.current().sandbox;
    }

    /** An idle javac file manager, or {@code null} (make a new one). */
    static StandardJavaFileManager idleFileManager() {
        FunctionResources r = SHARED.current();
        synchronized (r) {
            return r.idleFileManagers.poll();
        }
    }

    /** Keeps {@code fileManager} for the next compilation, or closes it if enough are kept or the threads stopped. */
    static void release(StandardJavaFileManager fileManager) {
        FunctionResources r = SHARED.currentOrNull();
        if (r != null) {
            synchronized (r) {
                if (!r.stopped && r.idleFileManagers.size() < IDLE_FILE_MANAGERS) {
                    r.idleFileManagers.push(fileManager);
                    return;
                }
            }
        }
        close(fileManager);
    }

    private static void close(StandardJavaFileManager fileManager) {
        try {
            fileManager.close();
        } catch (IOException e) {
            // nothing more to free
        }
    }

    private void stop() {
        watchdog.interrupt();
        compilers.shutdown();
        sandbox.shutdown();
        synchronized (this) {
            stopped = true;
            idleFileManagers.forEach(FunctionResources::close);
            idleFileManagers.clear();
        }
    }
}
