package io.rpcc.core.internal.chain;

import io.rpcc.core.spi.EngineSpi;

/**
 * Whose executor a node runs user code on ({@link Node.Settings#executor()}): rpcc's own (the
 * {@link DefaultExecutor}, when the user sets none), which lets rpcc start a hop on a platform
 * thread instead when that saves hand-offs, or the user's, which is always used as given.
 */
@EngineSpi
public enum ExecutorOwner {
    /** rpcc's own executor: a virtual thread per task, or a platform thread where rpcc prefers one. */
    RPCC,
    /** The user's executor, used for every task as given. */
    USER
}
