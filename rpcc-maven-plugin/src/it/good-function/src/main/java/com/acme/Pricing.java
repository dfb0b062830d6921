package com.acme;

import io.rpcc.core.ServiceMethod;

/** A service interface: not a chaining function, not packaged; sequential chains call it. */
public interface Pricing {
    @ServiceMethod("price")
    long price(Order order);
}
