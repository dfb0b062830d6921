package com.acme.svc;

import io.rpcc.core.RpccType;

/** One line of an {@link Order}: {@code quantity} of {@code sku} at {@code unitCents} each. */
@RpccType
public record Line(String sku, int quantity, long unitCents) {
    /** The line's total in cents. */
    public long cents() {
        return quantity * unitCents;
    }
}
