package io.rpcc.core.internal.wire;

import io.rpcc.core.spi.EngineSpi;

/**
 * How far and how long a chain may still go when a hop request leaves its sender (part of a
 * {@link ChainHeader}).
 *
 * @param maxHops the hop limit
 * @param budgetNanos what is left of the chain's deadline, in nanoseconds (zero or less: expired), or
 *     {@link ChainHeader#NO_DEADLINE}; a budget, not a time, so that the nodes' clocks need not agree
 * @param heartbeat the chain's time-to-heartbeat (paper 3.9), or {@link HeartbeatBudget#NONE}
 */
@EngineSpi
public record ChainLimits(int maxHops, long budgetNanos, HeartbeatBudget heartbeat) {
}
