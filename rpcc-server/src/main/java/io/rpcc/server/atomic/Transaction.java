package io.rpcc.server.atomic;

import io.rpcc.server.internal.atomic.TxContext;
import org.jspecify.annotations.Nullable;

/**
 * The transaction of the atomic chain whose hop is running on this thread: one transaction across
 * every hop, sub-chain and split branch of the chain. What a hop registers here belongs to that hop's
 * attempt: if the service function fails, or has to wait for a lock and runs again later, what this
 * attempt registered is dropped (the new run registers it again).
 *
 * <pre>{@code
 * Transaction tx = Transaction.current();
 * if (tx != null) {
 *     tx.onCommit(() -> switchConfig.apply(settings)); // only once the whole chain committed
 * }
 * }</pre>
 */
public interface Transaction {
    /**
     * The transaction of the atomic hop running on this thread, or {@code null} outside an atomic chain
     * (in a hop of an ordinary chain, in a commit or abort hook, on a thread of your own).
     */
    static @Nullable Transaction current() {
        return TxContext.current();
    }

    /**
     * A name of the transaction for logs: the chain's originator, number and attempt
     * ({@code origin/chainId#attempt}). A chain restarted after a wound is a new attempt, so a new id.
     */
    String id();

    /**
     * Runs {@code hook} at this node once the transaction has committed, after its writes are visible
     * and its resource managers committed, before its locks are released. Hooks run in the order they
     * were added, on a thread of the node; one that throws is logged and the others still run. This is
     * the place for effects outside rpcc, since a service function may run more than once.
     */
    void onCommit(Runnable hook);

    /**
     * Runs {@code hook} at this node if the transaction aborts (after its writes are dropped and its
     * resource managers rolled back). Same rules as {@link #onCommit(Runnable)}.
     */
    void onAbort(Runnable hook);

    /**
     * Makes {@code resource} take part in the transaction: it is prepared before this node votes, then
     * committed or rolled back with the transaction (see {@link ResourceManager}). Enlisting the same
     * instance again is harmless.
     */
    void enlist(ResourceManager resource);
}
