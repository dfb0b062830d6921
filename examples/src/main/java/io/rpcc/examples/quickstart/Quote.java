package io.rpcc.examples.quickstart;

/**
 * The chain's result: where the order ships from and what it costs.
 *
 * @param orderId the order
 * @param warehouse the warehouse that reserved the items
 * @param totalCents the price, in cents
 */
public record Quote(String orderId, String warehouse, long totalCents) {
}
