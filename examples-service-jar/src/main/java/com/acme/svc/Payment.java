package com.acme.svc;

import io.rpcc.core.RpccType;

/** A payment in a {@link Ledger}'s order ledger: the result of the atomic order chain. */
@RpccType
public record Payment(String orderId, String customer, long cents, String reservedAt, String paidAt) {
}
