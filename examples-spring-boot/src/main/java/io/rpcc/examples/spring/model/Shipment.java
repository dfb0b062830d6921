package io.rpcc.examples.spring.model;

/** What the chain returns: the order's price, its carrier and its delivery time. */
public record Shipment(String orderId, long totalCents, String carrier, int days) {
}
