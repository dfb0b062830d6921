package io.rpcc.core;

import org.jspecify.annotations.Nullable;

/**
 * Client logic that runs at a server after each service function and decides where the chain goes
 * next (paper section 3.1).
 *
 * <p>Chaining functions travel as source code ({@link ChainingFunctionSource}) and are compiled at
 * the server that runs them, so they must be <em>standalone</em>: a public class with a public
 * no-argument constructor that uses only the JDK, the rpcc API and types registered with
 * {@link TypeRegistry}. A fresh instance is created for every invocation, so fields do not carry
 * over between hops: keep what the chain needs in the {@link ChainState}.
 *
 * <pre>{@code
 * public class Route implements ChainingFunction {
 *     public NextHop apply(ChainState state, Object result) {
 *         String region = (String) result;
 *         return NextHop.call("inventory-" + region, "stock", state.get("sku"), state);
 *     }
 * }
 * }</pre>
 */
@FunctionalInterface
public interface ChainingFunction {
    /**
     * Chooses the next hop.
     *
     * @param state the chain state passed along by the previous hop (or the client)
     * @param result the result of this hop's service function
     * @return the next hop, or {@link NextHop#end(Object)} to send a result to the originator
     * @throws Exception any failure; it ends the chain with a {@link ChainingFunctionException}
     */
    NextHop apply(ChainState state, @Nullable Object result) throws Exception;
}
