package io.rpcc.core.internal.chain;

import java.util.concurrent.Executor;

/**
 * The executor a node runs user code on (service functions, chaining functions, callbacks; never an
 * event loop), and whose it is: a hop may start on a platform thread instead only when the executor
 * is rpcc's own ({@link ExecutorOwner#RPCC}), never when the user gave one.
 *
 * @param executor runs the node's user code
 * @param owner whose {@code executor} is
 */
public record HopThreads(Executor executor, ExecutorOwner owner) {
}
