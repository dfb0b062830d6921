package io.rpcc.core;

import org.jspecify.annotations.Nullable;

/**
 * A chain written as straight-line code: each call made through {@link Hops} is a hop of the chain,
 * run server to server, and what {@link #run} returns goes straight to the originator.
 *
 * <pre>{@code
 * public class SequentialCheckout implements SequentialChain<Order, Quote> {
 *     public Quote run(Hops hops, Order order) {
 *         String region = hops.at("gateway", Gateway.class).region(order);
 *         String site = hops.at("inventory-" + region, Inventory.class).reserve(order);
 *         long cents = hops.at("pricing", Pricing.class).quote(order);
 *         return new Quote(order.id(), site, cents);
 *     }
 * }
 * client.runChain(ChainCall.sequential(SequentialCheckout.class, order));
 * }</pre>
 *
 * <p>It runs by deterministic replay: it is shipped as source like any Java chaining function and
 * runs in the same sandbox. At every hop the server runs it again from the start, and each call
 * already made returns the result recorded in the chain state; the first call not made yet stops
 * the run and becomes the chain's next hop. So {@code run} must be deterministic: given the same
 * input and results it must make the same calls. The sandbox refuses clocks, randomness and the
 * hop-dependent parts of {@link ChainContext} in a sequential chain (rule {@code nondeterminism}),
 * and a replay that makes another call than the one recorded at a position fails the chain with a
 * {@link ReplayDivergedException}. The rules of chaining functions apply too: one public top-level
 * class with a public no-argument constructor, a fresh instance per hop, no mutable static state
 * ({@code docs/guides/sequential-chains.md}).
 *
 * @param <I> the input: a registered type, sent along with the chain
 * @param <O> the chain's result: a registered type
 */
public interface SequentialChain<I, O> {
    /**
     * The chain's code: calls through {@code hops}, returns the chain's result.
     *
     * @param hops the calls, and the console and partial replies of the chain
     * @param input the input the chain was started with
     * @return the chain's result, sent to the originator
     * @throws Exception to fail the chain (a {@link ChainingFunctionException} naming the hop)
     */
    @Nullable O run(Hops hops, I input) throws Exception;
}
