package io.rpcc.core;

import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * What a {@link ChainingFunction} returns: either <em>call server S, service function F with
 * params P, then chaining function C with state X</em> ({@link Call}), or <em>end the chain with
 * result R</em> ({@link End}).
 *
 * <pre>{@code
 * return NextHop.call("pricing", "quote", sku, state.with("qty", 3)); // same chaining function
 * return NextHop.callThenEnd("audit", "record", order);                // audit's result ends the chain
 * return NextHop.end(total);                                           // result goes to the originator
 * }</pre>
 */
public sealed interface NextHop permits NextHop.Call, NextHop.End {

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
}
