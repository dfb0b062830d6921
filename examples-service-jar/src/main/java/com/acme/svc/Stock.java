package com.acme.svc;

import io.rpcc.core.ServiceMethod;

/** Holds stock for a priced {@link Order}: service function {@code hold}, implemented by {@link Store}. */
public interface Stock {
    /** Holds the order's lines at this node; called with two parameters, so its params are {@code List.of(quote, order)}. */
    @ServiceMethod
    Receipt hold(Quote quote, Order order);
}
