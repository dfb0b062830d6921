package io.rpcc.core.internal.transport;

import io.rpcc.core.ChainErrorCode;
import io.rpcc.core.internal.wire.HopFailure;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;

/**
 * Spaces out a node's attempts to connect to a peer address that it could not reach: after the second
 * failed attempt in a row, none for the first backoff, doubling with each further failure up to the
 * largest, with 20 % jitter so that many nodes do not come back at once (gRPC's connection backoff
 * works alike). A single failure costs nothing: a peer that restarts is reached by the next try.
 * Until then, a send to that peer fails at once, naming the last failure: a node that forwards to a
 * name with several endpoints thus moves on to the next without waiting. A success forgets the
 * failures. Entries of peers not tried for a long time are dropped, so the table stays small.
 */
final class ReconnectBackoff {
    private static final int PRUNE_ABOVE = 4096;

    private record Failures(int inARow, long retryAtNanos, String lastFailure) {
    }

    private final String nodeName;
    private final long firstNanos;
    private final long maxNanos;
    private final ConcurrentMap<PeerKey, Failures> failures = new ConcurrentHashMap<>();

    ReconnectBackoff(String nodeName, ConnectionPolicy policy) {
        this.nodeName = nodeName;
        this.firstNanos = policy.firstReconnectBackoff().toNanos();
        this.maxNanos = policy.maxReconnectBackoff().toNanos();
    }

    /** The failure to give instead of connecting to {@code key} now, or {@code null}: connect. */
    HopFailure holdBack(PeerKey key) {
        Failures f = failures.get(key);
        if (f == null) {
            return null;
        }
        long wait = f.retryAtNanos() - System.nanoTime();
        if (wait <= 0) {
            return null;
        }
        return new HopFailure(ChainErrorCode.HOP_UNREACHABLE, "node '" + nodeName + "' does not try to connect to '"
                + key.node() + "' at " + key.address() + " again for " + TimeUnit.NANOSECONDS.toMillis(wait)
                + " ms: the last " + f.inARow() + " attempts failed (" + f.lastFailure() + "); give it a backup endpoint in the name resolver to fail over");
    }

    /** An attempt to connect to {@code key} failed with {@code cause}. */
    void failed(PeerKey key, Throwable cause) {
        long now = System.nanoTime();
        if (failures.size() > PRUNE_ABOVE) {
            failures.values().removeIf(f -> now - f.retryAtNanos() > maxNanos);
        }
        String why = cause.getMessage() != null ? cause.getMessage() : cause.getClass().getSimpleName();
        failures.compute(key, (k, f) -> {
            int n = f == null ? 1 : f.inARow() + 1;
            if (n == 1) {
                return new Failures(1, now, why);
            }
            long backoff = firstNanos;
            for (int i = 2; i < n && backoff < maxNanos; i++) {
                backoff *= 2;
            }
            backoff = Math.min(maxNanos, backoff);
            long jittered = (long) (backoff * ThreadLocalRandom.current().nextDouble(0.8, 1.2));
            return new Failures(n, now + jittered, why);
        });
    }

    /** A connection to {@code key} was made: its failures are forgotten. */
    void succeeded(PeerKey key) {
        failures.remove(key);
    }
}
