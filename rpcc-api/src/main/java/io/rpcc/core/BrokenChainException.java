package io.rpcc.core;

import org.jspecify.annotations.Nullable;

/**
 * The chain broke (paper 3.9): a branch of it stopped sending heartbeats for longer than the call's
 * broken-after time, so the node holding it crashed, was cut off, or stalls. Raised at the originator
 * only. When the client could run the chain in interactive mode to find where it stops, {@link #hop()}
 * and {@link #host()} name the hop that could not be reached or did not answer, and
 * {@link #serviceFunction()} its service function; otherwise they name the last place a heartbeat
 * came from. The message says what to do.
 *
 * <p>Retryable ({@link #isRetryable()}): the same chain may succeed once the node is back or its
 * name fails over; the hops before the broken one did run, and whether their service functions may
 * run again is the application's call (or that of the servers' outcome caches).
 */
public class BrokenChainException extends ChainException {
    private static final long serialVersionUID = 1L;

    private final @Nullable String serviceFunction;

    /** An exception for {@code failure}. */
    public BrokenChainException(ChainFailure failure) {
        this(failure, null, null);
    }

    /** An exception for {@code failure} at a hop of service function {@code serviceFunction} (or {@code null}), caused by {@code cause}. */
    public BrokenChainException(ChainFailure failure, @Nullable String serviceFunction, @Nullable Throwable cause) {
        super(failure, cause);
        this.serviceFunction = serviceFunction;
    }

    /** The service function of the hop where the chain stops, if known. */
    public @Nullable String serviceFunction() {
        return serviceFunction;
    }

    /** {@link ChainErrorCode#BROKEN_CHAIN}. */
    @Override
    public ChainErrorCode code() {
        return ChainErrorCode.BROKEN_CHAIN;
    }

    /** Always: a broken chain may succeed when run again. */
    @Override
    public boolean isRetryable() {
        return true;
    }
}
