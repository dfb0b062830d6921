package com.acme.svc;

import io.rpcc.core.RpccType;

/** The price of an {@link Order}, as the {@code price} service function on node {@code pricedAt} computed it. */
@RpccType
public record Quote(String orderId, long totalCents, String pricedAt) {
}
