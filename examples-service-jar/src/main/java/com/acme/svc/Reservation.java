package com.acme.svc;

import io.rpcc.core.RpccType;

/** Stock taken for an {@link Order} by {@link Warehouse#takeStock}: what the atomic order chain carries on to {@link Payments#pay}. */
@RpccType
public record Reservation(String orderId, String customer, long totalCents, String reservedAt) {
}
