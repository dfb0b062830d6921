package io.rpcc.server.internal.atomic;

/**
 * The transaction of an atomic hop was aborted at this node (or had ended before the hop came): what
 * a lock request, a parked hop's resume or a hop attempt fails with. Carries the reason given to
 * {@link LocalTransactions#abort}; no stack trace (it is control flow, and its message says where).
 */
public final class TransactionAborted extends RuntimeException {
    private static final long serialVersionUID = 1L;

    private final String reason;

    TransactionAborted(String transaction, String reason) {
        super("transaction " + transaction + " was aborted: " + reason, null, false, false);
        this.reason = reason;
    }

    /** Why the transaction was aborted. */
    public String reason() {
        return reason;
    }
}
