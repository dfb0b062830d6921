package com.acme.svc;

import io.rpcc.core.RpccType;

/** The input of a sequential checkout: order {@code orderId}, loaded at {@code desk}, priced at {@code pricing}, held at {@code stock}. */
@RpccType
public record CheckoutPlan(String orderId, String desk, String pricing, String stock) {
}
