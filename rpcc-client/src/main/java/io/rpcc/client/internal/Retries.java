package io.rpcc.client.internal;

import java.util.concurrent.atomic.AtomicLong;

/**
 * Where the retries of one call are told: the client's count of them, and the call's decorators
 * ({@link DecoratedCall#retried}).
 */
@FunctionalInterface
public interface Retries {
    /**
     * The chain is sent again as attempt {@code attempt} (2 for the first retry) after the attempt
     * before it failed with {@code failure}.
     */
    void retried(int attempt, Throwable failure);

    /** Counts each retry in {@code count} and tells {@code call}. */
    static Retries countedIn(AtomicLong count, Retries call) {
        return (attempt, failure) -> {
            count.incrementAndGet();
            call.retried(attempt, failure);
        };
    }
}
