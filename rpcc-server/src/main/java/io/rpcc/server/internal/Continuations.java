package io.rpcc.server.internal;

import io.rpcc.core.ChainErrorCode;
import io.rpcc.core.ChainState;
import io.rpcc.core.ChainingFunctionSource;
import io.rpcc.core.SubChain;
import io.rpcc.core.internal.wire.ChainHeader;
import io.rpcc.core.internal.wire.ChainSoFar;
import io.rpcc.core.internal.wire.ChainSecret;
import io.rpcc.core.internal.wire.HopFailure;
import io.rpcc.core.internal.wire.ReturnPoint;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * The chains parked at a server while a sub-chain that one of their hops started here runs (paper
 * 3.4, the non-composed form): for each, under its continuation number (the one in the return point
 * pushed onto the chain's return stack), the chaining function and state that resume it when the
 * sub-chain returns its result. No thread waits for a sub-chain: the entry is all that is kept. A
 * composed sub-chain parks nothing here ({@link #reserve}), unless it has a failure handler: then its
 * hop is parked too, for {@code rpcc.return.failure} to find the handler and resume the hop after a
 * recovery; such an entry is forgotten when the sub-chain ends here, else it waits for its expiry.
 *
 * <p>An entry lives until the sub-chain returns, the chain is cancelled here, or the chain's budget
 * plus {@link ChainTrails#GRACE_NANOS} has passed (at most {@link ChainTrails#MAX_RETENTION_NANOS}
 * for a chain without a deadline); at most {@link #MAX_ENTRIES} are kept (the oldest are forgotten
 * first). A return whose entry is gone fails its chain with a typed error. A return resumes only the
 * chain it belongs to: same originator, chain id and secret.
 */
final class Continuations {
    /** The most chains parked at once; beyond it the oldest are forgotten (their sub-chains cannot return). */
    static final int MAX_ENTRIES = 1 << 16;
    private static final long SWEEP_INTERVAL_NANOS = TimeUnit.SECONDS.toNanos(1);

    /**
     * A parked chain.
     *
     * @param chainingFunction the chaining function of the hop that started the sub-chain (or
     *     {@link ChainingFunctionSource#NONE}: the sub-chain's result is that hop's result)
     * @param state that chaining function's state
     * @param expiresNanos when the entry is forgotten
     * @param header the header of the hop that started the sub-chain
     * @param subChain the sub-chain it started (its handlers)
     */
    record Parked(ChainingFunctionSource chainingFunction, ChainState state, long expiresNanos, ChainHeader header,
                  SubChain subChain) {
        /** Its originator. */
        String origin() {
            return header.origin();
        }

        /** Its id there. */
        long chainId() {
            return header.chainId();
        }

        /** Its secret. */
        ChainSecret secret() {
            return header.secret();
        }

        /**
         * The header the parked hop resumes with when {@code returning} (the request that returns to
         * it) arrives: its chaining function and service function, the return stack popped.
         */
        ChainHeader resumed(ChainHeader returning) {
            List<ReturnPoint> stack = returning.returnStack();
            return returning.onward(new ChainSoFar(returning.hop(), returning.path(), returning.console(),
                    returning.timings(), returning.metadata()), header.serviceFunction(), chainingFunction,
                    returning.credit(), returning.budgetNanos()).with(chainingFunction, stack.subList(0,
                    stack.size() - 1));
        }
    }

    private final LinkedHashMap<Long, Parked> entries = new LinkedHashMap<>() {
        @Override
        protected boolean removeEldestEntry(Map.Entry<Long, Parked> eldest) {
            return size() > MAX_ENTRIES;
        }
    };
    private long nextNumber = 1;
    private long lastSweep = System.nanoTime();

    /**
     * Parks the chain of {@code h}, to resume with {@code chainingFunction} and {@code state}, for
     * {@code budgetNanos} (what is left of its deadline here) plus the grace, while {@code subChain}
     * runs; returns its continuation number.
     */
    synchronized long park(ChainHeader h, ChainingFunctionSource chainingFunction, ChainState state, long budgetNanos,
                           long nowNanos, SubChain subChain) {
        sweepIfDue(nowNanos);
        long keep = Math.min(Math.max(budgetNanos, 0), ChainTrails.MAX_RETENTION_NANOS - ChainTrails.GRACE_NANOS)
                + ChainTrails.GRACE_NANOS;
        long number = nextNumber++;
        entries.put(number, new Parked(chainingFunction, state, nowNanos + keep, h, subChain));
        return number;
    }

    /**
     * A fresh continuation number under which nothing is parked: a composed sub-chain without a
     * failure handler, whose return point carries its chaining function and state, and never comes
     * back here to resume (a failure of it is passed on from the return stack alone).
     */
    synchronized long reserve() {
        return nextNumber++;
    }

    /**
     * Takes the chain parked under {@code number} for the chain of {@code h}, or {@code null} if none
     * is (forgotten, expired, or another chain's: then it stays).
     */
    synchronized Parked resume(long number, ChainHeader h, long nowNanos) {
        Parked p = entries.get(number);
        if (p == null || !p.origin().equals(h.origin()) || p.chainId() != h.chainId() || !p.secret().matches(h.secret())) {
            return null;
        }
        entries.remove(number);
        return nowNanos - p.expiresNanos() < 0 ? p : null;
    }

    /**
     * Takes the chain parked here, at node {@code here}, that the request {@code h} returns to (the
     * innermost point of its return stack), or {@code null} if it is no longer here; fails if that
     * point is not this node.
     */
    Parked returnedTo(ChainHeader h, String here) {
        List<ReturnPoint> stack = h.returnStack();
        if (stack.isEmpty() || !stack.getLast().node().node().equals(here)) {
            throw new HopFailure(ChainErrorCode.SUB_CHAIN, "a sub-chain returned to node '" + here + "' after hop "
                    + h.hop() + ", but its return stack " + (stack.isEmpty() ? "is empty"
                    : "names '" + stack.getLast().node().node() + "'") + ": the node that sent it is faulty");
        }
        return resume(stack.getLast().continuation(), h, System.nanoTime());
    }

    /** Forgets the continuation {@code number} (its sub-chain could not be started). */
    synchronized void forget(long number) {
        entries.remove(number);
    }

    /** Forgets every chain parked for chain {@code origin#chainId} (it was cancelled). */
    synchronized void forgetChain(String origin, long chainId) {
        entries.values().removeIf(p -> p.chainId() == chainId && p.origin().equals(origin));
    }

    /** Chains parked now (forgetting the expired ones first). */
    synchronized int size() {
        sweep(System.nanoTime());
        return entries.size();
    }

    private void sweepIfDue(long nowNanos) {
        if (nowNanos - lastSweep >= SWEEP_INTERVAL_NANOS) {
            sweep(nowNanos);
        }
    }

    private void sweep(long nowNanos) {
        lastSweep = nowNanos;
        entries.values().removeIf(p -> nowNanos - p.expiresNanos() >= 0);
    }
}
