package io.rpcc.server.internal;

import io.rpcc.core.ChainState;
import io.rpcc.core.HopTiming;

/**
 * What the handler of a request's kind made of it, for the chaining function to go on from
 * ({@link HopChaining}): the hop (resumed, for a return), its chaining function's state, the value
 * that function gets (the service function's result, a sub-chain's result or recovery, a merge's
 * outcomes) and the hop's timing so far.
 *
 * @param hop the hop
 * @param state the chaining function's state
 * @param result the value the chaining function gets
 * @param timing the hop's timing, its chaining function's part still to come
 * @param cached the hop's kept outcome, which it records or replays, or {@code null}
 */
record HopResult(HopState hop, ChainState state, Object result, HopTiming timing, HopOutcomes.Outcome cached) {
    /** Whether the hop replays the outcome of its first run here (a chain sent again). */
    boolean replaying() {
        return cached != null && cached.replays();
    }
}
