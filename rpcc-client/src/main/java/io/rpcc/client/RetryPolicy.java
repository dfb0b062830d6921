package io.rpcc.client;

import io.rpcc.core.ChainException;
import java.time.Duration;
import java.util.Objects;

/**
 * How a client sends a chain again when it fails in a way that may pass (paper 3.9, idempotent
 * retry): a {@link ChainException#isRetryable() retryable} failure (an unreachable hop, a server
 * closed under a hop, a draining server, a chain whose heartbeats stopped, a failure its node marked
 * as of the moment) makes the client send the <em>same</em> chain (same id and secret) again after
 * a backoff, up to {@link #maxAttempts()} sendings in all, within the call's timeout and deadline and
 * as the client's {@link RetryThrottle} allows. The servers replay the outcomes they kept of the hops
 * that ran before (see {@code RpccServer.Builder.outcomeCache}), so within their cache's window no
 * service function runs twice and the chain moves fast up to where it broke. When no retry is left,
 * the call fails with the last attempt's error.
 *
 * <p>The backoff before retry {@code n} (1 for the first) is {@code initialBackoff * multiplier^(n-1)},
 * at most {@code maxBackoff}, spread by {@code ±jitter} of itself at random, as gRPC's retry policy does.
 *
 * <pre>{@code
 * RpccClient client = RpccClient.builder().retryPolicy(RetryPolicy.attempts(3)).build().start();
 * client.startChain(call.retry(RetryPolicy.attempts(5).backoff(Duration.ofMillis(50), Duration.ofSeconds(1), 2)));
 * }</pre>
 *
 * @param maxAttempts how many times the chain may be sent in all (1: never again)
 * @param initialBackoff the wait before the first retry
 * @param maxBackoff the longest wait before a retry
 * @param multiplier how much the wait grows from one retry to the next (at least 1)
 * @param jitter the fraction (0 to 1) by which each wait is spread at random
 */
public record RetryPolicy(int maxAttempts, Duration initialBackoff, Duration maxBackoff, double multiplier,
                          double jitter) {
    /** Never send a chain again (the default). */
    public static final RetryPolicy NONE = new RetryPolicy(1, Duration.ZERO, Duration.ZERO, 1, 0);

    public RetryPolicy {
        Objects.requireNonNull(initialBackoff, "initialBackoff");
        Objects.requireNonNull(maxBackoff, "maxBackoff");
        if (maxAttempts < 1 || maxAttempts > 1000) {
            throw new IllegalArgumentException("maxAttempts must be 1 to 1000, got " + maxAttempts);
        }
        if (initialBackoff.isNegative() || maxBackoff.compareTo(initialBackoff) < 0) {
            throw new IllegalArgumentException("backoffs must satisfy 0 <= initial <= max, got " + initialBackoff
                    + " and " + maxBackoff);
        }
        if (!(multiplier >= 1) || Double.isInfinite(multiplier)) {
            throw new IllegalArgumentException("multiplier must be at least 1, got " + multiplier);
        }
        if (!(jitter >= 0 && jitter <= 1)) {
            throw new IllegalArgumentException("jitter must be between 0 and 1, got " + jitter);
        }
    }

    /**
     * Up to {@code maxAttempts} sendings in all, with a backoff from 100 ms, doubling up to 5 s,
     * spread by ±20 %.
     */
    public static RetryPolicy attempts(int maxAttempts) {
        return new RetryPolicy(maxAttempts, Duration.ofMillis(100), Duration.ofSeconds(5), 2, 0.2);
    }

    /** With backoffs from {@code initial}, growing by {@code multiplier}, up to {@code max}. */
    public RetryPolicy backoff(Duration initial, Duration max, double multiplier) {
        return new RetryPolicy(maxAttempts, initial, max, multiplier, jitter);
    }

    /** With each backoff spread by {@code ±jitter} of itself. */
    public RetryPolicy jitter(double jitter) {
        return new RetryPolicy(maxAttempts, initialBackoff, maxBackoff, multiplier, jitter);
    }

    /**
     * The wait before retry {@code retry} (1 for the first), for a uniform {@code random} in [0, 1).
     */
    public Duration backoff(int retry, double random) {
        double nanos = initialBackoff.toNanos() * Math.pow(multiplier, Math.max(0, retry - 1));
        nanos = Math.min(nanos, maxBackoff.toNanos());
        nanos *= 1 - jitter + 2 * jitter * random;
        return Duration.ofNanos((long) Math.max(0, Math.min(nanos, maxBackoff.toNanos())));
    }
}
