package io.rpcc.client;

/**
 * A client's budget for retries, shared by all its chains, in the manner of gRPC's retry
 * throttling: a bucket of tokens, full ({@code maxTokens}) at first; each retry takes
 * {@code costPerRetry}, each chain that succeeds puts back {@code tokensPerSuccess} (up to the
 * full bucket), and a retry happens only while the bucket holds more than half of {@code maxTokens}.
 * When many chains fail at once (an outage, not a blip), retries stop soon instead of multiplying
 * the load; a call that may not retry fails with its original error. The default,
 * {@link #DEFAULT}, allows a burst of 50 retries and then one retry per 10 successes.
 *
 * @param maxTokens the bucket's size (more than 0)
 * @param tokensPerSuccess what a successful chain puts back (0 or more)
 * @param costPerRetry what a retry takes (more than 0)
 */
public record RetryThrottle(double maxTokens, double tokensPerSuccess, double costPerRetry) {
    /** 100 tokens, 1 per retry, 0.1 back per success. */
    public static final RetryThrottle DEFAULT = new RetryThrottle(100, 0.1, 1);

    public RetryThrottle {
        if (!(maxTokens > 0) || !(tokensPerSuccess >= 0) || !(costPerRetry > 0) || Double.isInfinite(maxTokens)) {
            throw new IllegalArgumentException("a retry throttle needs maxTokens > 0, tokensPerSuccess >= 0 and "
                    + "costPerRetry > 0, got " + maxTokens + ", " + tokensPerSuccess + ", " + costPerRetry);
        }
    }
}
