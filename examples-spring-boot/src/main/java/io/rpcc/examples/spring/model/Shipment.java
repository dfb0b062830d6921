package io.rpcc.examples.spring.model;

import io.rpcc.core.RpccType;

/** What the chain returns: the order's price, its carrier and its delivery time. */
@RpccType
public record Shipment(String orderId, long totalCents, String carrier, int days) {
}
