package io.rpcc.examples.quickstart;

import io.rpcc.core.ServiceMethod;

/** The pricing server's service interface. */
public interface Pricing {
    /** The order's price, in cents. */
    @ServiceMethod
    long quote(Order order);
}
