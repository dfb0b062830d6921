package io.rpcc.examples.spring.model;

import io.rpcc.core.RpccType;

/** An order with its price, as the catalog sends it on to shipping. */
@RpccType
public record PricedOrder(Order order, long totalCents) {
}
