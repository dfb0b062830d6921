package io.rpcc.server.atomic;

/**
 * A store outside rpcc that takes part in an atomic chain's transaction, enlisted with
 * {@link Transaction#enlist(ResourceManager)} by a service function that changed it. The node calls
 * it in two phases, once per transaction, on a thread of its own choosing (never while a service
 * function of the transaction runs at that node):
 *
 * <ol>
 *   <li>{@link #prepare()} when the hop that enlisted it has finished at this node and before the
 *       chain goes on (the node's vote). It is called again, once, if a later hop of the same
 *       transaction at this node enlists it again;</li>
 *   <li>then exactly one of {@link #commit()} (every participant voted yes and the chain ended with a
 *       result) or {@link #rollback()} (anything else: a no vote, a failure, a wound, a cancel).</li>
 * </ol>
 *
 * <p>If the hop that enlisted it fails or has to wait for a lock (its work is dropped and it may run
 * again), the node calls {@link #rollback()} at once, unless an earlier, finished hop of the same
 * transaction had already enlisted the same instance (then the instance stays enlisted and undoing
 * the failed hop's part is its own business, for example with a savepoint).
 *
 * <p>Implementations need not be thread-safe beyond this: the node does not call two of these methods
 * of one instance at the same time.
 */
public interface ResourceManager {
    /**
     * Makes sure the work done so far can be committed. A throw votes no: the transaction aborts, and
     * {@link #rollback()} follows.
     *
     * @throws Exception if the work cannot be committed; its message is carried in the abort's reason
     */
    void prepare() throws Exception;

    /**
     * Makes the work durable; called only after every participant voted yes. The decision is taken:
     * a throw cannot undo it, so it is logged and counted as a heuristic outcome (the other
     * participants committed, this store may not have), for an operator to look at.
     *
     * @throws Exception if the commit failed
     */
    void commit() throws Exception;

    /**
     * Discards the work. Called after a no vote or any other abort, also without an earlier
     * {@link #prepare()}. A throw is logged; the transaction is aborted anyway.
     *
     * @throws Exception if the rollback failed
     */
    void rollback() throws Exception;
}
