package io.rpcc.core.internal.chain;

import io.rpcc.core.internal.wire.ChainHeader;
import io.rpcc.core.internal.wire.ChainRequest;
import io.rpcc.core.internal.wire.HeartbeatBudget;
import java.time.Duration;
import java.time.Instant;

/**
 * What a chain's budgets lose on the way: a node's per-crossing allowances (of its deadline budget
 * and of its time-to-heartbeat, paper 3.9), and the charge a request takes as it leaves on a
 * connection (the time since its budgets were made, and the crossing's estimated one-way time beyond
 * the allowance), taken off both.
 */
public final class ChainBudgets {
    private final long allowanceNanos;
    private final long heartbeatAllowanceNanos;

    /** The budgets of a node whose crossings cost {@code deadlineAllowance} and {@code heartbeatAllowance}. */
    public ChainBudgets(Duration deadlineAllowance, Duration heartbeatAllowance) {
        this.allowanceNanos = deadlineAllowance.toNanos();
        this.heartbeatAllowanceNanos = heartbeatAllowance.toNanos();
    }

    /** The budget of a chain: nanoseconds until the earlier of {@code timeout} from now and {@code deadline} (or {@code null}). */
    public static long budgetNanos(Duration timeout, Instant deadline) {
        long budget = saturatedNanos(timeout);
        return deadline == null ? budget : Math.min(budget, saturatedNanos(Duration.between(Instant.now(), deadline)));
    }

    private static long saturatedNanos(Duration d) {
        try {
            return d.toNanos();
        } catch (ArithmeticException e) {
            return d.isNegative() ? Long.MIN_VALUE / 2 : ChainHeader.NO_DEADLINE - 1;
        }
    }

    /** What a chain's budget loses per crossing, besides the sender's own time. */
    public long allowanceNanos() {
        return allowanceNanos;
    }

    /** What a chain's time-to-heartbeat loses per crossing, besides the sender's own time. */
    public long heartbeatAllowanceNanos() {
        return heartbeatAllowanceNanos;
    }

    /**
     * {@code request}, whose budgets were made (less their allowances) at {@code sinceNanos}, as it
     * leaves on a connection whose one-way time is estimated at {@code oneWayNanos} (-1: no
     * estimate): its deadline budget and its time-to-heartbeat each less the time since (a resolver's
     * answer, a new connection's handshake) and less what the crossing is estimated to take beyond
     * the allowance already charged. The allowance is thus the least a crossing costs. Charging the
     * time-to-heartbeat keeps the next hop's first heartbeat on the schedule its sender's is on: the
     * originator counts a chain's silence from when it launched it, so a request that waited
     * seconds for its connection must not arrive with a whole interval left before its first
     * heartbeat is due.
     */
    public ChainRequest charged(ChainRequest request, long oneWayNanos, long sinceNanos) {
        ChainHeader h = request.header();
        HeartbeatBudget heartbeat = h.heartbeat();
        if (h.budgetNanos() == ChainHeader.NO_DEADLINE && !heartbeat.isOn()) {
            return request;
        }
        long waited = Math.max(0, System.nanoTime() - sinceNanos);
        long charge = waited + Math.max(0, oneWayNanos - allowanceNanos);
        ChainHeader charged = h;
        if (h.budgetNanos() != ChainHeader.NO_DEADLINE && charge > 0) {
            charged = charged.withBudget(NextHopDecision.lessAllowance(h.budgetNanos(), charge));
        }
        long heartbeatCharge = waited + Math.max(0, oneWayNanos - heartbeatAllowanceNanos);
        if (heartbeat.isOn() && heartbeatCharge > 0) {
            charged = charged.withHeartbeat(new HeartbeatBudget(heartbeat.intervalNanos(),
                    NextHopDecision.lessAllowance(heartbeat.remainingNanos(), heartbeatCharge)));
        }
        if (charged == h) {
            return request;
        }
        return request.withHeader(charged);
    }
}
