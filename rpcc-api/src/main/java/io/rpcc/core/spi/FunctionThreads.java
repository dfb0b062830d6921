package io.rpcc.core.spi;

import java.util.concurrent.Callable;
import java.util.concurrent.Executor;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * The platform threads sandboxed chaining functions of every language run on (the JVM measures CPU
 * time and allocation only for platform threads), shared by the nodes of a JVM and running while
 * one of them is open.
 *
 * <p>They run while somebody holds them: a node takes a {@link #hold()} when it starts and gives it up
 * when it closes, and the last hold given up stops the threads (running work finishes, nothing new
 * starts). A plug-in that runs functions outside a node (a test of its compiler) takes its own hold.
 */
public final class FunctionThreads {
    private static ExecutorService threads; // guarded by FunctionThreads.class
    private static int holds; // guarded by FunctionThreads.class

    private FunctionThreads() {
    }

    /**
     * Runs {@code task} on a sandbox thread.
     *
     * @throws IllegalStateException if nobody holds the threads (no node is open)
     */
    public static <T> Future<T> submit(Callable<T> task) {
        return running().submit(task);
    }

    /**
     * The threads, as an executor (for work that must run on a platform thread, such as a hop whose
     * sandboxed function is compiled already).
     *
     * @throws IllegalStateException if nobody holds the threads (no node is open)
     */
    public static Executor executor() {
        return running();
    }

    /**
     * Takes a hold on the threads, starting them if nobody held them; give it up with
     * {@link Hold#close()} (once; a second close does nothing).
     */
    public static Hold hold() {
        synchronized (FunctionThreads.class) {
            if (holds++ == 0) {
                threads = Executors.newCachedThreadPool(Thread.ofPlatform().name("rpcc-sandbox-", 0).daemon(true).factory());
            }
        }
        AtomicBoolean given = new AtomicBoolean();
        return () -> {
            if (given.compareAndSet(false, true)) {
                release();
            }
        };
    }

    private static void release() {
        ExecutorService stopped;
        synchronized (FunctionThreads.class) {
            if (--holds > 0) {
                return;
            }
            stopped = threads;
            threads = null;
        }
        stopped.shutdown();
    }

    private static synchronized ExecutorService running() {
        if (threads == null) {
            throw new IllegalStateException("rpcc's sandbox threads are not running: they run while a node is started");
        }
        return threads;
    }

    /** A hold on the threads (see {@link FunctionThreads#hold()}). */
    @FunctionalInterface
    public interface Hold extends AutoCloseable {
        /** Gives the hold up; the last one stops the threads. */
        @Override
        void close();
    }
}
