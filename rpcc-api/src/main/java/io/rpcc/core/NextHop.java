package io.rpcc.core;

import java.util.List;
import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * What a {@link ChainingFunction} returns: either <em>call server S, service function F with
 * params P, then chaining function C with state X</em> ({@link Call}), or <em>end the chain with
 * result R</em> ({@link End}), or <em>split the chain into several branches that run at once and
 * merge their outcomes at a merge host</em> ({@link Split}).
 *
 * <pre>{@code
 * return NextHop.call("pricing", "quote", sku, state.with("qty", 3)); // same chaining function
 * return NextHop.callThenEnd("audit", "record", order);                // audit's result ends the chain
 * return NextHop.end(total);                                           // result goes to the originator
 * return NextHop.split(List.of(NextHop.callThenEnd("s1", "search", q), NextHop.callThenEnd("s2", "search", q)))
 *         .mergeAt("gateway", MERGE, state);                            // both at once, merged at gateway
 * }</pre>
 */
public sealed interface NextHop permits NextHop.Call, NextHop.End, NextHop.Split {

    /**
     * Calls {@code serviceFunction} on {@code server}, then this same chaining function with
     * {@code state}.
     */
    static Call call(String server, String serviceFunction, @Nullable Object params, ChainState state) {
        return new Call(server, serviceFunction, params, ChainingFunctionSource.SAME, state);
    }

    /** Calls {@code serviceFunction} on {@code server}, then {@code next} with {@code state}. */
    static Call call(String server, String serviceFunction, @Nullable Object params,
                     ChainingFunctionSource next, ChainState state) {
        return new Call(server, serviceFunction, params, next, state);
    }

    /** Calls {@code serviceFunction} on {@code server}; its result is the chain's result. */
    static Call callThenEnd(String server, String serviceFunction, @Nullable Object params) {
        return new Call(server, serviceFunction, params, ChainingFunctionSource.NONE, ChainState.empty());
    }

    /** Ends the chain: {@code result} goes straight to the chain's originator. */
    static End end(@Nullable Object result) {
        return new End(result);
    }

    /**
     * Splits the chain (paper 3.10): each of {@code branches} runs at once as a branch of its own
     * (its service function, then its chaining function, as a {@link Call} would), and their
     * outcomes are merged, by default at the node where the split happens, with the default merge:
     * the chain goes on with the list of the branches' results, in branch order, or fails with the
     * failure of the first branch (in branch order) that failed. {@link Split#mergeAt} chooses
     * another merge host and a merge function.
     *
     * @throws IllegalArgumentException if there is no branch or more than {@link Split#MAX_BRANCHES}
     */
    static Split split(List<Call> branches) {
        return new Split(branches, null, ChainingFunctionSource.NONE, ChainState.empty());
    }

    /**
     * The next hop of a chain.
     *
     * @param server the name of the next server (resolved by the node's {@link NameResolver})
     * @param serviceFunction the service function to call there
     * @param params its parameters
     * @param chainingFunction the chaining function to run after it: a source,
     *     {@link ChainingFunctionSource#SAME} or {@link ChainingFunctionSource#NONE}
     * @param state the state handed to that chaining function
     */
    record Call(String server, String serviceFunction, @Nullable Object params,
                ChainingFunctionSource chainingFunction, ChainState state) implements NextHop {
        public Call {
            Objects.requireNonNull(server, "server");
            Objects.requireNonNull(serviceFunction, "serviceFunction");
            chainingFunction = chainingFunction == null ? ChainingFunctionSource.SAME : chainingFunction;
            state = state == null ? ChainState.empty() : state;
        }
    }

    /**
     * The end of a chain.
     *
     * @param result the chain's result, delivered to the originator
     */
    record End(@Nullable Object result) implements NextHop {
    }

    /**
     * A split of the chain into branches that run at once, and where and how their outcomes merge
     * (paper 3.10). Each branch is numbered by its position, from 1: branch {@code i} of a chain on
     * branch {@code b} is on {@code b.child(i)} ({@link ChainContext#branch()}, which also tells how many
     * siblings it has). A branch ends where a {@link Call} chain would end (its chaining function
     * returns {@link End}, or it has none and its service function returns); its outcome (result,
     * or failure) then goes to the merge host, which waits, holding no thread, until it has every
     * branch's outcome and then runs the merge function with the list of {@link BranchOutcome}s, in
     * branch order, and {@code state}; what that returns is the chain's next hop. A branch may split
     * again, start sub-chains, and send partial replies (they go to the originator as every reply).
     *
     * @param branches the first hop of each branch, in order (a {@link ChainingFunctionSource#SAME}
     *     chaining function is the one that split)
     * @param mergeServer the merge host, or {@code null} for the node where the split happens
     * @param mergeFunction the merge function: a chaining function over ({@code state},
     *     {@code List<BranchOutcome>}), {@link ChainingFunctionSource#SAME} for the one that split, or
     *     {@link ChainingFunctionSource#NONE} for the default merge (see {@link NextHop#split})
     * @param state the merge function's state
     */
    record Split(List<Call> branches, @Nullable String mergeServer, ChainingFunctionSource mergeFunction,
                 ChainState state) implements NextHop {
        /** The most branches of one split. */
        public static final int MAX_BRANCHES = 256;

        public Split {
            Objects.requireNonNull(branches, "branches");
            if (branches.isEmpty() || branches.size() > MAX_BRANCHES) {
                throw new IllegalArgumentException("a split has 1 to " + MAX_BRANCHES + " branches, got "
                        + branches.size());
            }
            for (Call branch : branches) {
                Objects.requireNonNull(branch, "a branch of a split is null");
            }
            branches = List.copyOf(branches);
            mergeFunction = mergeFunction == null ? ChainingFunctionSource.NONE : mergeFunction;
            state = state == null ? ChainState.empty() : state;
        }

        /** This split, merged at {@code server} with the default merge. */
        public Split mergeAt(String server) {
            return new Split(branches, Objects.requireNonNull(server, "server"), ChainingFunctionSource.NONE,
                    ChainState.empty());
        }

        /** This split, merged at {@code server} by {@code mergeFunction} with an empty state. */
        public Split mergeAt(String server, ChainingFunctionSource mergeFunction) {
            return mergeAt(server, mergeFunction, ChainState.empty());
        }

        /**
         * This split, merged at {@code server} (or, if {@code null}, where it happens) by
         * {@code mergeFunction} ({@link ChainingFunctionSource#SAME}: the chaining function that split)
         * with {@code state}.
         */
        public Split mergeAt(@Nullable String server, ChainingFunctionSource mergeFunction, ChainState state) {
            return new Split(branches, server, Objects.requireNonNull(mergeFunction, "mergeFunction"), state);
        }
    }
}
