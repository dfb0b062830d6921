package io.rpcc.core;

import org.jspecify.annotations.Nullable;

/**
 * What a {@link SubChainFailureHandler} decided: recover with a result (which becomes the result of
 * the service function that started the failed sub-chain, so the parent chain goes on) or pass the
 * failure on to the enclosing sub-chain's creator, or the originator. Immutable.
 */
public final class SubChainRecovery {
    private static final SubChainRecovery PASS_ON = new SubChainRecovery(false, null);

    private final boolean recovers;
    private final @Nullable Object result;

    private SubChainRecovery(boolean recovers, @Nullable Object result) {
        this.recovers = recovers;
        this.result = result;
    }

    /**
     * Recover: {@code result} becomes the result of the service function that started the sub-chain
     * (a {@link SubChain} starts that sub-chain instead).
     */
    public static SubChainRecovery recover(@Nullable Object result) {
        return new SubChainRecovery(true, result);
    }

    /** Pass the failure on, unchanged: the default when a sub-chain has no handler. */
    public static SubChainRecovery passOn() {
        return PASS_ON;
    }

    /** Whether this recovers (else it passes the failure on). */
    public boolean recovers() {
        return recovers;
    }

    /** The result to recover with ({@code null} when passing on). */
    public @Nullable Object result() {
        return result;
    }

    @Override
    public String toString() {
        return recovers ? "SubChainRecovery[recover with " + result + "]" : "SubChainRecovery[pass on]";
    }
}
