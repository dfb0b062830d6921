package io.rpcc.examples.spring.shipping;

import io.rpcc.examples.spring.api.Carrier;
import io.rpcc.examples.spring.model.PricedOrder;
import io.rpcc.examples.spring.model.Shipment;
import io.rpcc.spring.boot.RpccService;

/** The shipping service: picks a carrier for a priced order (service function "ship", declared by {@link Carrier}). */
@RpccService
public class Shipping implements Carrier {

    /** Ships {@code priced}: orders within France go by road, the others by air. */
    @Override
    public Shipment ship(PricedOrder priced) {
        boolean domestic = priced.order().country().equals("FR");
        return new Shipment(priced.order().id(), priced.totalCents(), domestic ? "road" : "air", domestic ? 2 : 5);
    }
}
