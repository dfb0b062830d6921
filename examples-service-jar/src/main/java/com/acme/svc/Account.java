package com.acme.svc;

import io.rpcc.core.RpccType;

/** A customer's account at a {@link Ledger}: the credit left and the orders paid from it. */
@RpccType
public record Account(String customer, long creditCents, int ordersPaid) {
}
