package io.rpcc.examples.spring.model;

import io.rpcc.core.RpccType;

/**
 * A partial reply of the checkout chain: how far the order got ({@code step}: "priced" at the catalog,
 * "shipped" at shipping), with its price so far.
 */
@RpccType
public record Quote(String orderId, String step, long totalCents) {
}
