package io.rpcc.testkit.history;

/** How a transaction ended, as its client saw it. */
public enum Outcome {
    /** The client was told the transaction committed. */
    COMMITTED,
    /** The client was told the transaction aborted: none of its writes may ever be seen. */
    ABORTED,
    /**
     * The client does not know (it was cancelled, timed out, or lost its connection before the
     * decision reached it): the transaction may or may not have committed. The checker counts it
     * as committed if anything shows one of its writes (a committed read, the install log, the final
     * state), and as never having run otherwise.
     */
    UNKNOWN
}
