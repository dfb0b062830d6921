package io.rpcc.core.internal.chain;

import io.rpcc.core.spi.EngineSpi;
import java.time.Duration;

/**
 * How an originator watches a chain's heartbeats (paper 3.9): the chain's nodes send one every
 * {@code intervalNanos}, and the chain is broken when a branch is silent for longer than
 * {@code brokenAfterNanos}.
 *
 * @param intervalNanos the heartbeat interval (0: no heartbeats, the chain is never declared broken)
 * @param brokenAfterNanos the silence after which the chain is broken
 */
@EngineSpi
public record HeartbeatPolicy(long intervalNanos, long brokenAfterNanos) {
    /** No heartbeats. */
    public static final HeartbeatPolicy OFF = new HeartbeatPolicy(0, 0);

    public HeartbeatPolicy {
        if (intervalNanos < 0 || (intervalNanos > 0 && brokenAfterNanos <= intervalNanos)) {
            throw new IllegalArgumentException("heartbeats need a positive interval shorter than the broken-after time, got "
                    + Duration.ofNanos(intervalNanos) + " and " + Duration.ofNanos(brokenAfterNanos));
        }
    }

    /** Heartbeats every {@code interval}, broken after {@code brokenAfter}. */
    public static HeartbeatPolicy of(Duration interval, Duration brokenAfter) {
        return new HeartbeatPolicy(interval.toNanos(), brokenAfter.toNanos());
    }

    /** Whether the chain sends heartbeats. */
    public boolean isOn() {
        return intervalNanos > 0;
    }
}
