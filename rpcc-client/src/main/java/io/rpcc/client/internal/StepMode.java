package io.rpcc.client.internal;

import io.rpcc.core.internal.chain.ChainOriginator;
import io.rpcc.core.internal.chain.HeartbeatPolicy;

/**
 * How an interactive chain launches its steps: with heartbeats watched as {@code heartbeats} says,
 * and, when it diagnoses a broken chain ({@link ChainDiagnosis}), as new runs of that chain.
 *
 * @param heartbeats how each step's heartbeats are watched
 * @param rerunOf the broken chain (its last attempt) whose id and secret every step carries, as the
 *     attempt after it (so that the servers treat each step as that chain's hop: their outcome caches
 *     replay what already ran; and the broken attempt's late frames are dropped), or {@code null}
 */
public record StepMode(HeartbeatPolicy heartbeats, ChainOriginator.Pending rerunOf) {
    /** Steps with heartbeats watched as {@code heartbeats}, each a chain of its own. */
    public static StepMode of(HeartbeatPolicy heartbeats) {
        return new StepMode(heartbeats, null);
    }

    /**
     * Whether this run diagnoses a broken chain. Its steps share the chain's id, so they run one at a
     * time (a split's branches too), each finished before the next starts.
     */
    public boolean diagnosing() {
        return rerunOf != null;
    }
}
