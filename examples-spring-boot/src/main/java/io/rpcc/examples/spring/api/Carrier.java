package io.rpcc.examples.spring.api;

import io.rpcc.core.ServiceMethod;
import io.rpcc.examples.spring.model.PricedOrder;
import io.rpcc.examples.spring.model.Shipment;

/** Shipping's service interface: service function "ship". */
public interface Carrier {
    /** Picks a carrier for {@code priced}. */
    @ServiceMethod("ship")
    Shipment ship(PricedOrder priced);
}
