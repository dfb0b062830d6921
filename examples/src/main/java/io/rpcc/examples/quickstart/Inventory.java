package io.rpcc.examples.quickstart;

import io.rpcc.core.ServiceMethod;

/** An inventory server's service interface (one per region: inventory-eu, inventory-us). */
public interface Inventory {
    /** Reserves the order's items: the warehouse that holds them. */
    @ServiceMethod
    String reserve(Order order);
}
