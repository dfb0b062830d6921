package com.acme.svc;

import io.rpcc.core.ServiceMethod;

/** Prices an {@link Order}: service function {@code quote}, implemented by {@link Store}. */
public interface Pricing {
    /** The order's total, priced at this node. */
    @ServiceMethod
    Quote quote(Order order);
}
