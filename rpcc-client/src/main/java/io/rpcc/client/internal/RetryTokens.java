package io.rpcc.client.internal;

import io.rpcc.client.RetryThrottle;

/**
 * The token bucket of a client's {@link RetryThrottle}: shared by the client's chains, full at
 * first; retries take tokens, successes put some back, and a retry happens only while more than
 * half the bucket is left.
 */
public final class RetryTokens {
    private final RetryThrottle throttle;
    private double tokens; // guarded by this

    /** A full bucket of {@code throttle}. */
    public RetryTokens(RetryThrottle throttle) {
        this.throttle = throttle;
        this.tokens = throttle.maxTokens();
    }

    /** Takes the cost of a retry if the bucket allows one; {@code false} (nothing taken) if not. */
    synchronized boolean tryRetry() {
        if (tokens <= throttle.maxTokens() / 2) {
            return false;
        }
        tokens = Math.max(0, tokens - throttle.costPerRetry());
        return true;
    }

    /** A chain succeeded: puts back its tokens. */
    synchronized void succeeded() {
        tokens = Math.min(throttle.maxTokens(), tokens + throttle.tokensPerSuccess());
    }

    /** The tokens in the bucket now. */
    public synchronized double tokens() {
        return tokens;
    }
}
