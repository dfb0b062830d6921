package io.rpcc.examples.spring.api;

import io.rpcc.core.ServiceMethod;
import io.rpcc.examples.spring.model.Order;
import io.rpcc.examples.spring.model.PricedOrder;

/** The catalog's service interface: service function "price". */
public interface Pricing {
    /** Prices {@code order}; an unknown SKU fails the chain. */
    @ServiceMethod("price")
    PricedOrder price(Order order);
}
