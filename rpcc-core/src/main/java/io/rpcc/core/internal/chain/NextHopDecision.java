package io.rpcc.core.internal.chain;

import io.rpcc.core.ChainErrorCode;
import io.rpcc.core.ChainState;
import io.rpcc.core.ChainingFunctionSource;
import io.rpcc.core.NextHop;
import io.rpcc.core.SubChain;
import io.rpcc.core.internal.wire.ChainHeader;
import io.rpcc.core.internal.wire.ChainLimits;
import io.rpcc.core.internal.wire.HopFailure;
import io.rpcc.core.internal.wire.ReturnPoint;
import io.rpcc.core.spi.EngineSpi;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/**
 * What a node does with the {@link NextHop} a chaining function returned, and with what a service
 * function returned: the one place that interprets next hops and outcomes, for servers (the hop's
 * own chaining function, or a chaining proxy's) and for interactive mode (chaining functions run at
 * the client). Each side carries out the {@link Action} it gets: it sends the chain on
 * ({@link Forward}), delivers its result ({@link Finish}), reports the hop as failed ({@link Fail}),
 * starts a nested sub-chain ({@link StartSubChain}), returns a sub-chain's result to the node that
 * created it or a branch's outcome to its merge host ({@link ReturnToCreator}), splits the chain
 * ({@link StartSplit}) or runs the chaining function ({@link RunChainingFunction}). A
 * new kind of next hop or outcome gets its rules here, and an action if none of these fits.
 *
 * <p>The rules: a chain never exceeds the smaller of its own hop limit and this node's, in all: a
 * split shares the hops left among its branches ({@link #branchLimits}), each at least one, and the
 * merge goes on with what they left ({@link #mergedLimit}); a sub-chain's hops are numbered on from
 * its chain's, which resumes with the sub-chain's header, so they count too; a
 * {@link ChainingFunctionSource#SAME} chaining function stays the current one; the chain goes on
 * with what is left of its deadline budget less the network allowance of one crossing (a chain
 * without a deadline keeps none). Whether that budget is spent is checked where the next hop
 * arrives, so that the error names the hop that did not start and its server.
 */
@EngineSpi
public final class NextHopDecision {
    /** What to do with a next hop. */
    public sealed interface Action permits Forward, Finish, Fail, StartSubChain, ReturnToCreator, RunChainingFunction,
            StartSplit {
    }

    /**
     * Send the chain on as hop {@code hop}: {@code call}'s service function at its server, then
     * {@code chainingFunction} with {@code call}'s state.
     *
     * @param call the next hop as the chaining function returned it
     * @param chainingFunction the chaining function to run after that service function: a source, or
     *     {@link ChainingFunctionSource#NONE} to end with its result ({@link ChainingFunctionSource#SAME}
     *     resolved to the current one)
     * @param hop the number of the next hop
     * @param budgetNanos the deadline budget to send the chain with, or {@link ChainHeader#NO_DEADLINE}
     */
    public record Forward(NextHop.Call call, ChainingFunctionSource chainingFunction, int hop, long budgetNanos)
            implements Action {
        /** The next server. */
        public String server() {
            return call.server();
        }

        /** The service function to call there. */
        public String serviceFunction() {
            return call.serviceFunction();
        }

        /** Its parameters. */
        public Object params() {
            return call.params();
        }

        /** The state for the chaining function after it. */
        public ChainState state() {
            return call.state();
        }
    }

    /** End the chain: {@code result} is its result, for its originator. */
    public record Finish(Object result) implements Action {
    }

    /**
     * The service function returned a sub-chain: park the hop (its chaining function and state) at
     * this node, push a return point to it, and send the chain to the sub-chain's first hop as hop
     * {@code hop} with {@code budgetNanos}.
     */
    public record StartSubChain(SubChain subChain, int hop, long budgetNanos) implements Action {
    }

    /**
     * A sub-chain ended with {@code result}: send it, with {@code budgetNanos}, to the node of
     * {@code to} (the innermost return point), where the chain parked there resumes with it. If
     * {@code to} is a merge point ({@link ReturnPoint#isMerge()}), a branch of a split ended: its
     * outcome goes to the merge host.
     */
    public record ReturnToCreator(ReturnPoint to, Object result, long budgetNanos) implements Action {
    }

    /**
     * The chaining function split the chain (paper 3.10): send each branch's first hop as hop
     * {@code hop} with {@code budgetNanos}, followed by its chaining function in
     * {@code branchFunctions} ({@link ChainingFunctionSource#SAME} resolved), and have the outcomes
     * merged at {@code split.mergeServer()} (or, if {@code null}, here) by {@code mergeFunction}
     * ({@link ChainingFunctionSource#SAME} resolved; {@link ChainingFunctionSource#NONE}: the default merge).
     * Branch {@code i} goes with the hop limit {@code branchMaxHops.get(i)}: its share of the hops the
     * chain has left ({@link #branchLimits}), so that all branches together stay within the chain's limit.
     */
    public record StartSplit(NextHop.Split split, List<ChainingFunctionSource> branchFunctions,
                             ChainingFunctionSource mergeFunction, int hop, long budgetNanos,
                             List<Integer> branchMaxHops) implements Action {
        public StartSplit {
            branchMaxHops = List.copyOf(branchMaxHops);
        }
    }

    /** The service function returned {@code result}: run the chaining function with it. */
    public record RunChainingFunction(Object result) implements Action {
    }

    /** The hop fails with {@code code} and {@code message}; the chain ends with that error. */
    public record Fail(ChainErrorCode code, String message) implements Action {
        /** The failure to report (or throw). */
        public HopFailure failure() {
            return new HopFailure(code, message);
        }
    }

    private final int nodeMaxHops;
    private final long allowanceNanos;

    /**
     * The decisions of a node that lets chains reach {@code nodeMaxHops} hops and charges
     * {@code allowanceNanos} of a chain's budget for each crossing to another node.
     */
    public NextHopDecision(int nodeMaxHops, long allowanceNanos) {
        this.nodeMaxHops = nodeMaxHops;
        this.allowanceNanos = allowanceNanos;
    }

    /** The decisions of {@code node}, with its hop limit and network allowance. */
    public static NextHopDecision of(Node node) {
        return new NextHopDecision(node.settings().maxHops(), node.allowanceNanos());
    }

    /**
     * What to do with {@code result}, returned by the service function of hop {@code hop}, whose
     * chaining function is {@code current}, of a chain that may reach {@code chainMaxHops} hops, has
     * {@code remainingNanos} of its budget left here and returns to {@code returnStack} (innermost
     * last) when it ends: start the sub-chain it is one (within the hop limit and
     * {@link ReturnPoint#MAX_DEPTH} levels), or end the chain (or sub-chain) with it if there is no
     * chaining function, or run the chaining function.
     */
    public Action afterService(Object result, int hop, int chainMaxHops, ChainingFunctionSource current,
                               long remainingNanos, List<ReturnPoint> returnStack) {
        if (result instanceof SubChain sub) {
            Fail overLimit = overHopLimit(hop, chainMaxHops, sub.firstHop());
            if (overLimit != null) {
                return overLimit;
            }
            if (returnStack.size() >= ReturnPoint.MAX_DEPTH) {
                return new Fail(ChainErrorCode.SUB_CHAIN, "sub-chains nest at most " + ReturnPoint.MAX_DEPTH
                        + " levels deep; not starting " + sub + " from hop " + hop + ": does a service function start "
                        + "a sub-chain that leads back to itself?");
            }
            return new StartSubChain(sub, hop + 1, budgetForNext(remainingNanos));
        }
        if (current.isNone()) {
            return decide(NextHop.end(result), hop, chainMaxHops, current, remainingNanos, returnStack);
        }
        return new RunChainingFunction(result);
    }

    /**
     * What to do with {@code next}, returned by the chaining function {@code current} after hop
     * {@code hop} of a chain that may reach {@code chainMaxHops} hops, has {@code remainingNanos}
     * of its budget left here ({@link ChainHeader#NO_DEADLINE} without a deadline) and returns to
     * {@code returnStack} (innermost last; empty: the chain ends at its originator) when it ends.
     */
    public Action decide(NextHop next, int hop, int chainMaxHops, ChainingFunctionSource current,
                         long remainingNanos, List<ReturnPoint> returnStack) {
        Objects.requireNonNull(next, "next");
        return switch (next) {
            case NextHop.End end -> returnStack.isEmpty() ? new Finish(end.result())
                    : new ReturnToCreator(returnStack.getLast(), end.result(), budgetForNext(remainingNanos));
            case NextHop.Call call -> {
                Fail overLimit = overHopLimit(hop, chainMaxHops, call);
                if (overLimit != null) {
                    yield overLimit;
                }
                ChainingFunctionSource then = call.chainingFunction().isSame() ? current : call.chainingFunction();
                yield new Forward(call, then, hop + 1, budgetForNext(remainingNanos));
            }
            case NextHop.Split split -> split(split, hop, chainMaxHops, current, remainingNanos, returnStack);
        };
    }

    /** The rules of a split: every branch within the hop limit, the return stack within its depth. */
    private Action split(NextHop.Split split, int hop, int chainMaxHops, ChainingFunctionSource current,
                         long remainingNanos, List<ReturnPoint> returnStack) {
        List<ChainingFunctionSource> functions = new ArrayList<>(split.branches().size());
        for (NextHop.Call call : split.branches()) {
            Fail overLimit = overHopLimit(hop, chainMaxHops, call);
            if (overLimit != null) {
                return overLimit;
            }
            functions.add(call.chainingFunction().isSame() ? current : call.chainingFunction());
        }
        int n = split.branches().size();
        int limit = Math.min(chainMaxHops, nodeMaxHops);
        if ((long) limit - hop < n) { // each branch needs at least its first hop
            NextHop.Call call = split.branches().get((int) Math.max(0, (long) limit - hop));
            return new Fail(ChainErrorCode.HOP_LIMIT_EXCEEDED, "chain reached its hop limit of " + limit
                    + " hops: " + (limit - hop) + " left after hop " + hop + " cannot be shared among " + n
                    + " branches; not calling '" + call.serviceFunction() + "' at '" + call.server() + "'");
        }
        if (returnStack.size() >= ReturnPoint.MAX_DEPTH) {
            return new Fail(ChainErrorCode.SUB_CHAIN, "splits and sub-chains nest at most " + ReturnPoint.MAX_DEPTH
                    + " levels deep; not splitting into " + split.branches().size() + " branches after hop " + hop
                    + ": does a branch split again without end?");
        }
        ChainingFunctionSource merge = split.mergeFunction().isSame() ? current : split.mergeFunction();
        return new StartSplit(split, List.copyOf(functions), merge, hop + 1, budgetForNext(remainingNanos),
                branchLimits(hop, limit, n));
    }

    /**
     * The hop limits of the {@code n} branches of a split after hop {@code hop} of a chain that may
     * reach {@code limit} hops: the {@code limit - hop} hops it has left are shared among them like
     * credit, as evenly as they divide (the first branches get one more), each at least one; together
     * the branches cannot run more hops than the chain could have run alone. What a branch leaves
     * unused returns at the merge ({@link #mergedLimit}).
     */
    public static List<Integer> branchLimits(int hop, int limit, int n) {
        long left = (long) limit - hop;
        if (n < 1 || left < n) {
            throw new IllegalArgumentException(left + " hops left cannot be shared among " + n + " branches");
        }
        List<Integer> limits = new ArrayList<>(n);
        for (int i = 0; i < n; i++) {
            limits.add((int) (hop + left / n + (i < left % n ? 1 : 0)));
        }
        return List.copyOf(limits);
    }

    /**
     * The hop limit a chain goes on with after a merge at hop {@code mergedHop} (the last hop of its
     * longest branch), the branches having left {@code unused} hops of their shares
     * ({@link #branchLimits}): just those, so that the hops of the branches and of the chain after
     * the merge together stay within the chain's limit before the split.
     */
    public static int mergedLimit(int mergedHop, long unused) {
        return (int) Math.min(Integer.MAX_VALUE, mergedHop + Math.max(0, unused));
    }

    /** {@code h} with {@code maxHops} as its hop limit (a branch's share, or what a merge goes on with). */
    public static ChainHeader withMaxHops(ChainHeader h, int maxHops) {
        return new ChainHeader(h.chain(), h.soFar(), h.serviceFunction(), h.chainingFunction(), h.credit(), h.route(),
                new ChainLimits(maxHops, h.limits().budgetNanos(), h.limits().heartbeat()));
    }

    /** The failure of calling {@code call} after hop {@code hop}, if that exceeds the hop limit; else {@code null}. */
    private Fail overHopLimit(int hop, int chainMaxHops, NextHop.Call call) {
        int limit = Math.min(chainMaxHops, nodeMaxHops);
        if (hop + 1 > limit) {
            return new Fail(ChainErrorCode.HOP_LIMIT_EXCEEDED, "chain reached its hop limit of " + limit
                    + " hops; not calling '" + call.serviceFunction() + "' at '" + call.server() + "'");
        }
        return null;
    }

    /** The budget to send a chain on with when {@code remainingNanos} of it are left here. */
    public long budgetForNext(long remainingNanos) {
        if (remainingNanos == ChainHeader.NO_DEADLINE) {
            return remainingNanos;
        }
        return lessAllowance(remainingNanos, allowanceNanos);
    }

    /**
     * A budget ({@code remainingNanos} left here: of the deadline, or the time-to-heartbeat) as it
     * leaves for another node: less {@code allowanceNanos} for the crossing; a spent budget stays spent.
     */
    public static long lessAllowance(long remainingNanos, long allowanceNanos) {
        long next = remainingNanos - allowanceNanos;
        return next > remainingNanos ? Long.MIN_VALUE / 2 : next;
    }
}
