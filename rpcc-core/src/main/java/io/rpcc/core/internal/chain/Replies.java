package io.rpcc.core.internal.chain;

import io.rpcc.core.spi.EngineSpi;

/**
 * The partially ordering protocol (POP, Quatrain section 3.2) of one hop invocation: one reference
 * count, raised before anything that may later produce a partial reply starts (a task, a thread, a
 * reply handed to the writer) and lowered when it ends (the task returns, the write completes).
 * The invocation itself holds one unit until the hop hands over. When the count reaches zero the
 * hop is <em>quiet</em>: it will never send anything again for this chain.
 */
@EngineSpi
public interface Replies {
    /** Sends a partial reply to the chain's originator. */
    void preturn(Object reply);

    /**
     * Raises the count for work that may reply later.
     *
     * @throws IllegalStateException if the hop is already quiet
     */
    void raise();

    /** Lowers the count when that work ends. */
    void lower();

    /**
     * Work started through the context threw {@code error}: the chain ends partial with it (the
     * first such error of the hop is reported, once the hop is quiet). Called before {@link #lower()}.
     */
    void failed(Throwable error);
}
