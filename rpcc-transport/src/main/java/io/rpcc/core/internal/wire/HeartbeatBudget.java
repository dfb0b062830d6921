package io.rpcc.core.internal.wire;

import io.rpcc.core.spi.EngineSpi;

/**
 * A chain's time-to-heartbeat (paper 3.9), header field 19: how often the node holding the chain
 * tells the originator that the chain is alive, and how long is left until it next must, when the
 * request leaves its sender. Like the deadline it travels as a budget, so the nodes' clocks need
 * not agree: each node counts it down by its own time and by a network allowance per crossing.
 *
 * @param intervalNanos the heartbeat interval the originator asked for (0: the chain sends no heartbeats)
 * @param remainingNanos what is left until the next heartbeat is due (zero or less: due on arrival)
 */
@EngineSpi
public record HeartbeatBudget(long intervalNanos, long remainingNanos) {
    /** A chain without heartbeats (rpcc's own calls, or heartbeats turned off). */
    public static final HeartbeatBudget NONE = new HeartbeatBudget(0, 0);

    public HeartbeatBudget {
        if (intervalNanos < 0) {
            throw new IllegalArgumentException("a heartbeat interval cannot be negative, got " + intervalNanos);
        }
        if (intervalNanos == 0) {
            remainingNanos = 0;
        }
    }

    /** Whether the chain sends heartbeats. */
    public boolean isOn() {
        return intervalNanos > 0;
    }
}
