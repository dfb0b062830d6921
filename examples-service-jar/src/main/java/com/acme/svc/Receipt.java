package com.acme.svc;

import io.rpcc.core.RpccType;

/** The result of a checkout: the order's quote and the node that reserved its stock. */
@RpccType
public record Receipt(String orderId, String customer, long totalCents, String pricedAt, String reservedAt) {
}
