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
 * @param adaptive the adaptive state fall-back that chooses, before each step whose chaining function
 *     needs the state, whether to send the state on with it and let the chain go on in chain mode from
 *     there, or {@code null}: every chaining function runs here
 */
public record StepMode(HeartbeatPolicy heartbeats, ChainOriginator.Pending rerunOf, StateFallbacks adaptive) {
    /** Steps with heartbeats watched as {@code heartbeats}, each a chain of its own. */
    public static StepMode of(HeartbeatPolicy heartbeats) {
        return new StepMode(heartbeats, null, null);
    }

    /** Steps of a broken chain {@code rerunOf} run again, with heartbeats watched as {@code heartbeats}. */
    public StepMode(HeartbeatPolicy heartbeats, ChainOriginator.Pending rerunOf) {
        this(heartbeats, rerunOf, null);
    }

    /** Steps as {@link #of}, whose state goes on or stays as {@code adaptive} chooses. */
    public static StepMode adaptive(HeartbeatPolicy heartbeats, StateFallbacks adaptive) {
        return new StepMode(heartbeats, null, adaptive);
    }

    /**
     * Whether this run diagnoses a broken chain. Its steps share the chain's id, so they run one at a
     * time (a split's branches too), each finished before the next starts.
     */
    public boolean diagnosing() {
        return rerunOf != null;
    }

    /** These steps with every chaining function run here (a split's branches: they merge at the client). */
    public StepMode withoutAdaptive() {
        return adaptive == null ? this : new StepMode(heartbeats, rerunOf, null);
    }
}
