package io.rpcc.function.java.internal;

import java.io.IOException;
import java.util.ArrayDeque;
import java.util.Deque;
import javax.tools.StandardJavaFileManager;

/**
 * What Java chaining functions need besides the node's shared threads, shared by the nodes of a
 * JVM: the sandbox's watchdog thread and javac's idle file managers (warm: they cache the platform
 * classes, but each holds the class path's jar files open). Owned by the nodes together: each
 * {@link JavaFunctionCompiler} takes a hold when its node starts and gives it up when the node
 * closes; the last one to close stops the watchdog and closes the file managers, and the next hold
 * starts them again. So a JVM whose nodes are all closed holds none of them.
 */
final class JavaResources {
    /** Idle javac file managers kept at most. */
    private static final int IDLE_FILE_MANAGERS = 4;

    private static final Object LOCK = new Object();
    private static JavaResources current; // guarded by LOCK
    private static int holds; // guarded by LOCK

    private final Thread watchdog;
    private final Deque<StandardJavaFileManager> idleFileManagers = new ArrayDeque<>(); // guarded by this
    private boolean stopped; // guarded by this

    private JavaResources() {
        this.watchdog = Thread.ofPlatform().name("rpcc-sandbox-watchdog").daemon(true).start(SandboxWatchdog::watch);
    }

    /** Takes a hold (starting the watchdog if nobody held it). */
    static void acquire() {
        synchronized (LOCK) {
            if (holds++ == 0) {
                current = new JavaResources();
            }
        }
    }

    /** Gives up a hold; the last one stops the watchdog and closes the idle file managers. */
    static void release() {
        JavaResources stopping;
        synchronized (LOCK) {
            if (holds == 0) {
                throw new IllegalStateException("rpcc's Java function resources released more often than acquired");
            }
            if (--holds > 0) {
                return;
            }
            stopping = current;
            current = null;
        }
        stopping.stop();
    }

    /** An idle javac file manager, or {@code null} (make a new one). */
    static StandardJavaFileManager idleFileManager() {
        JavaResources r;
        synchronized (LOCK) {
            r = current;
        }
        if (r == null) {
            return null;
        }
        synchronized (r) {
            return r.idleFileManagers.poll();
        }
    }

    /** Keeps {@code fileManager} for the next compilation, or closes it if enough are kept or nobody holds them. */
    static void release(StandardJavaFileManager fileManager) {
        JavaResources r;
        synchronized (LOCK) {
            r = current;
        }
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
        synchronized (this) {
            stopped = true;
            idleFileManagers.forEach(JavaResources::close);
            idleFileManagers.clear();
        }
    }
}
