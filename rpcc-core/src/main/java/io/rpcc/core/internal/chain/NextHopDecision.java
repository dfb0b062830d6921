package io.rpcc.core.internal.chain;

import io.rpcc.core.ChainState;
import io.rpcc.core.ChainingFunctionSource;
import io.rpcc.core.NextHop;
import io.rpcc.core.internal.wire.ChainHeader;
import io.rpcc.core.internal.wire.ErrorCode;
import io.rpcc.core.internal.wire.HopFailure;
import java.util.Objects;

/**
 * What a node does with the {@link NextHop} a chaining function returned: the one place that
 * interprets next hops, for servers (the hop's own chaining function, or a chaining proxy's) and for
 * interactive mode (chaining functions run at the client). Each side carries out the {@link Action}
 * it gets: it sends the chain on ({@link Forward}), delivers its result ({@link Finish}) or reports
 * the hop as failed ({@link Fail}). A new kind of next hop gets its rules here, and an action if none
 * of these fits.
 *
 * <p>The rules: a chain never exceeds the smaller of its own hop limit and this node's; a
 * {@link ChainingFunctionSource#SAME} chaining function stays the current one; the chain goes on
 * with what is left of its deadline budget less the network allowance of one crossing (a chain
 * without a deadline keeps none). Whether that budget is spent is checked where the next hop
 * arrives, so that the error names the hop that did not start and its server.
 */
public final class NextHopDecision {
    /** What to do with a next hop. */
    public sealed interface Action permits Forward, Finish, Fail {
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

    /** The hop fails with {@code code} and {@code message}; the chain ends with that error. */
    public record Fail(ErrorCode code, String message) implements Action {
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
     * What to do with {@code next}, returned by the chaining function {@code current} after hop
     * {@code hop} of a chain that may reach {@code chainMaxHops} hops and has {@code remainingNanos}
     * of its budget left here ({@link ChainHeader#NO_DEADLINE} without a deadline).
     */
    public Action decide(NextHop next, int hop, int chainMaxHops, ChainingFunctionSource current,
                         long remainingNanos) {
        Objects.requireNonNull(next, "next");
        return switch (next) {
            case NextHop.End end -> new Finish(end.result());
            case NextHop.Call call -> {
                int limit = Math.min(chainMaxHops, nodeMaxHops);
                if (hop + 1 > limit) {
                    yield new Fail(ErrorCode.HOP_LIMIT_EXCEEDED, "chain reached its hop limit of " + limit
                            + " hops; not calling '" + call.serviceFunction() + "' at '" + call.server() + "'");
                }
                ChainingFunctionSource then = call.chainingFunction().isSame() ? current : call.chainingFunction();
                yield new Forward(call, then, hop + 1, budgetForNext(remainingNanos));
            }
        };
    }

    /** The budget to send a chain on with when {@code remainingNanos} of it are left here. */
    public long budgetForNext(long remainingNanos) {
        if (remainingNanos == ChainHeader.NO_DEADLINE) {
            return remainingNanos;
        }
        long next = remainingNanos - allowanceNanos;
        return next > remainingNanos ? Long.MIN_VALUE / 2 : next; // a spent budget stays spent
    }
}
