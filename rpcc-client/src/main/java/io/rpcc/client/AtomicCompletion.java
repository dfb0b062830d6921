package io.rpcc.client;

/**
 * When the future of an {@linkplain ChainCall#atomic(AtomicCompletion) atomic chain} completes with its
 * result: once every server has applied the commit ({@link #APPLIED}, the default), or as soon as the
 * client has decided it ({@link #DECIDED}). An abort fails the future the same way in both.
 */
public enum AtomicCompletion {
    /**
     * The future completes once every server that took part has applied the commit and acknowledged
     * it: the decision plus a round trip to the farthest server. Any read after that, at any server and
     * by any means ({@code TxVar.committed()}, a read outside a transaction, a plain chain, what an
     * {@code onCommit} hook did), sees the commit.
     */
    APPLIED,
    /**
     * The future completes with the result as soon as the client has decided to commit (the chain's
     * result and every server's vote are home): a round trip sooner than {@link #APPLIED}. The decision
     * still goes to every server, is sent again until acknowledged, and is kept by the client for the
     * servers that ask; nothing else about the transaction changes.
     *
     * <p>What holds at the return: the commit is decided and will be applied at every server that took
     * part. Every atomic chain started after the return that touches the same state sees the commit,
     * since each server keeps the transaction's locks until it has applied the decision, and a
     * transaction that has voted is never backed out by a conflicting one. What may not hold yet: a read
     * outside an atomic chain ({@code TxVar.committed()}, {@code TxVar.get()} outside a transaction), a
     * chain that is not atomic, and the effects of {@code onCommit} hooks may still see the state before
     * the commit, for up to the one-way delay to the farthest server. If the client's process ends right
     * after the return, the servers learn the decision from each other (see the atomic chains guide, "When
     * the client is lost").
     */
    DECIDED
}
