package io.rpcc.core.internal.chain;

import java.util.concurrent.Executor;
import java.util.concurrent.ThreadFactory;

/**
 * The executor a node uses when the user sets none: a virtual thread per task. Because rpcc chose
 * it, rpcc may also start a hop on a platform thread instead when that saves hand-offs (a hop
 * whose sandboxed Java chaining function needs one); a user's own executor is always used as given.
 */
public final class DefaultExecutor implements Executor {
    private final ThreadFactory threads;

    /**
     * Virtual threads named {@code rpcc-<node>} (one name for all: a numbered name costs each task a
     * string and the JDK factory's counter; a thread dump tells them apart by their ids).
     */
    public DefaultExecutor(String nodeName) {
        this.threads = Thread.ofVirtual().name("rpcc-" + nodeName).factory();
    }

    @Override
    public void execute(Runnable task) {
        threads.newThread(task).start();
    }
}
