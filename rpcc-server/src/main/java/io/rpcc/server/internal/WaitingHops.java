package io.rpcc.server.internal;

import io.rpcc.core.internal.chain.HopControl;
import io.rpcc.core.internal.wire.ChainHeader;
import io.rpcc.core.internal.wire.ChainRequest;
import java.util.ArrayList;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;

/**
 * The arrivals of a hop that wait here for the same hop's first run to end ({@link HopOutcomes#WAITING}:
 * a chain sent again that caught up with its earlier attempt). Each holds its chain until it is
 * handed back, so it heartbeats to the chain's originator like a running hop (paper 3.9), with its
 * own attempt's secret: without that, a retried chain waiting on a first run longer than its
 * broken-after time would be declared broken, and the first run's heartbeats (the earlier attempt's)
 * do not count for it. Only chains sent again get here, so one lock is enough; chains never retried
 * pay one volatile read per hop.
 */
final class WaitingHops {
    private final Map<ChainRequest, HopControl> waiting = new IdentityHashMap<>(); // guarded by this
    private volatile boolean any;

    /** {@code request}, which arrived at {@code arrivedNanos}, waits for its hop's first run. */
    synchronized void waits(ChainRequest request, long arrivedNanos) {
        ChainHeader h = request.header();
        waiting.put(request, new HopControl(arrivedNanos, h.budgetNanos(), h.heartbeat()));
        any = true;
    }

    /** {@code request} is handled anew (its wait, if it waited, is over). */
    void handedBack(ChainRequest request) {
        if (any) {
            synchronized (this) {
                waiting.remove(request);
                any = !waiting.isEmpty();
            }
        }
    }

    /**
     * Sends with {@code send}, at {@code nowNanos}, the heartbeats due for the waiting arrivals, and
     * starts their next interval.
     */
    void sendDueHeartbeats(long nowNanos, Consumer<ChainHeader> send) {
        if (!any) {
            return;
        }
        List<ChainHeader> due = new ArrayList<>();
        synchronized (this) {
            for (Map.Entry<ChainRequest, HopControl> e : waiting.entrySet()) {
                if (e.getValue().heartbeatDue(nowNanos)) {
                    e.getValue().heartbeatSent(nowNanos);
                    due.add(e.getKey().header());
                }
            }
        }
        due.forEach(send);
    }
}
