package io.rpcc.client.internal;

import io.rpcc.core.ChainException;
import io.rpcc.core.internal.chain.ChainOriginator;
import io.rpcc.core.internal.chain.ChainStart;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;

/**
 * The chains of a client that failed with a retryable failure and that the application may send
 * again ({@code RpccClient.retransmit}): by the exception they failed with, the chain (what it is,
 * and its last attempt: its id and secret), for {@value #KEEP_SECONDS} s (the servers' default
 * outcome-cache time), at most {@value #MAX} chains, the oldest forgotten first.
 */
final class FailedChains {
    static final int MAX = 10_000;
    static final long KEEP_SECONDS = 60;

    /** A chain that failed: what it is, and its last attempt. */
    record Failed(ChainStart start, ChainOriginator.Pending last, long failedNanos) {
    }

    /** Oldest first; exceptions are equal only to themselves. */
    private final LinkedHashMap<ChainException, Failed> failed = new LinkedHashMap<>();

    /** Chain {@code start}, whose last attempt is {@code last}, failed with {@code e}. */
    synchronized void remember(ChainException e, ChainStart start, ChainOriginator.Pending last) {
        forgetOld(System.nanoTime());
        Failed f = new Failed(start, last, System.nanoTime());
        failed.put(e, f);
    }

    /** The last attempt of the chain that failed with {@code e}, if remembered. */
    synchronized Optional<ChainOriginator.Pending> lastAttempt(ChainException e) {
        forgetOld(System.nanoTime());
        Failed f = failed.get(e);
        return f == null ? Optional.empty() : Optional.of(f.last());
    }

    /**
     * Takes the chain that failed with {@code e}, to send it again (once: its next failure is a new one).
     *
     * @throws IllegalArgumentException if no such chain is remembered
     */
    synchronized Failed take(ChainException e) {
        forgetOld(System.nanoTime());
        Failed f = failed.remove(e);
        if (f == null) {
            throw new IllegalArgumentException("cannot send the chain of this failure again: it is not the retryable "
                    + "failure of a chain this client started with startChain or runChain, or it was sent again "
                    + "already, or it failed more than " + KEEP_SECONDS + " s (or " + MAX + " failed chains) ago ("
                    + e.getMessage() + ")");
        }
        return f;
    }

    private void forgetOld(long nowNanos) {
        for (Iterator<Map.Entry<ChainException, Failed>> it = failed.entrySet().iterator(); it.hasNext(); ) {
            Map.Entry<ChainException, Failed> oldest = it.next();
            if (failed.size() <= MAX && nowNanos - oldest.getValue().failedNanos() < TimeUnit.SECONDS.toNanos(KEEP_SECONDS)) {
                return;
            }
            it.remove();
        }
    }
}
