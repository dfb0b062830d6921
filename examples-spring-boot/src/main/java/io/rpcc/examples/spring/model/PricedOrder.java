package io.rpcc.examples.spring.model;

/** An order with its price, as the catalog sends it on to shipping. */
public record PricedOrder(Order order, long totalCents) {
}
