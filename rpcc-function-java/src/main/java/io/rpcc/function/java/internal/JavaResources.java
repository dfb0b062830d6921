package io.rpcc.function.java.internal;

import java.io.IOException;
import java.util.ArrayDeque;
import java.util.Deque;
import javax.tools.JavaCompiler;

/**
 * What Java chaining functions need besides the node's shared threads, shared by the nodes of a
 * JVM: the sandbox's watchdog thread, Java 21's platform classes ({@link PlatformClasses}: the JDK's
 * {@code ct.sym}, opened by the first compilation) and javac's idle file managers
 * ({@link ReleaseFileManager}: warm, they cache what they have read). Owned by the nodes together:
 * each {@link JavaFunctionCompiler} takes a hold when its node starts and gives it up when the node
 * closes; the last one to close stops the watchdog and closes the file managers and the platform
 * classes (once no compilation uses them), and the next hold starts them again. So a JVM whose nodes
 * are all closed holds none of them.
 */
final class JavaResources {
    /** Idle javac file managers kept at most. */
    private static final int IDLE_FILE_MANAGERS = 4;

    private static final Object LOCK = new Object();
    private static JavaResources current; // guarded by LOCK
    private static int holds; // guarded by LOCK

    private final Thread watchdog;
    private final Deque<ReleaseFileManager> idleFileManagers = new ArrayDeque<>(); // guarded by this
    private PlatformClasses platform; // guarded by this; null until the first compilation, or if this JDK has none
    private boolean platformOpened; // guarded by this
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

    /**
     * A file manager for one compilation, to give back with {@link #release(ReleaseFileManager)}: an
     * idle one, or a new one on the platform classes (opened now if this is the first compilation
     * since a node took a hold). With no node holding them, a new one for javac's {@code --release}
     * (it reads {@code ct.sym} afresh, the slow way).
     */
    static ReleaseFileManager fileManager(JavaCompiler javac) {
        JavaResources r;
        synchronized (LOCK) {
            r = current;
        }
        PlatformClasses served = null;
        if (r != null) {
            synchronized (r) {
                ReleaseFileManager idle = r.idleFileManagers.poll();
                if (idle != null) {
                    return idle;
                }
                if (!r.stopped) {
                    if (!r.platformOpened) {
                        r.platformOpened = true;
                        r.platform = PlatformClasses.open(ReleaseFileManager.RELEASE);
                    }
                    if (r.platform != null && r.platform.retain()) {
                        served = r.platform;
                    }
                }
            }
        }
        return ReleaseFileManager.create(javac, served);
    }

    /**
     * Keeps {@code fileManager} for the next compilation, or closes it if enough are kept, nobody
     * holds them, or it serves other platform classes than the current ones.
     */
    static void release(ReleaseFileManager fileManager) {
        JavaResources r;
        synchronized (LOCK) {
            r = current;
        }
        if (r != null) {
            synchronized (r) {
                if (!r.stopped && r.idleFileManagers.size() < IDLE_FILE_MANAGERS && r.platformOpened
                        && fileManager.platform() == r.platform) {
                    r.idleFileManagers.push(fileManager);
                    return;
                }
            }
        }
        close(fileManager);
    }

    /**
     * {@code broken} can no longer be read (see {@link PlatformClasses#readable()}): if it is still
     * the current platform classes, drops them with the idle file managers serving them, so that the
     * next compilation opens {@code ct.sym} afresh.
     */
    static void discard(PlatformClasses broken) {
        JavaResources r;
        synchronized (LOCK) {
            r = current;
        }
        if (r == null) {
            return;
        }
        synchronized (r) {
            if (r.platform != broken) {
                return; // dropped already
            }
            r.idleFileManagers.removeIf(idle -> {
                if (idle.platform() == broken) {
                    close(idle);
                    return true;
                }
                return false;
            });
            r.platform = null;
            r.platformOpened = false;
        }
        broken.release(); // JavaResources' own hold; the file managers still compiling hold theirs
    }

    private static void close(ReleaseFileManager fileManager) {
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
            if (platform != null) {
                platform.release(); // closes ct.sym once the file managers still compiling are closed too
                platform = null;
            }
        }
    }
}
