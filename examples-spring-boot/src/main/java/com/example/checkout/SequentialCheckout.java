package com.example.checkout;

import io.rpcc.core.Hops;
import io.rpcc.core.SequentialChain;
import io.rpcc.examples.spring.api.Carrier;
import io.rpcc.examples.spring.api.Pricing;
import io.rpcc.examples.spring.model.Order;
import io.rpcc.examples.spring.model.PricedOrder;
import io.rpcc.examples.spring.model.Quote;
import io.rpcc.examples.spring.model.Shipment;

/**
 * The checkout chain written as straight-line code, with typed calls on the sample's service
 * interfaces: the same hops, partial replies and result as the continuation-style {@link Checkout}
 * (catalog's {@code price}, then shipping's {@code ship}, the shipment straight back to the client).
 * Each call is a hop; at each server, after the service function, the code runs again from the start
 * with the results recorded so far (see docs/guides/sequential-chains.md).
 */
public class SequentialCheckout implements SequentialChain<Order, Shipment> {
    @Override
    public Shipment run(Hops hops, Order order) {
        PricedOrder priced = hops.at("catalog", Pricing.class).price(order);
        hops.preturn(new Quote(order.id(), "priced", priced.totalCents()));
        Shipment shipment = hops.at("shipping", Carrier.class).ship(priced);
        hops.preturn(new Quote(order.id(), "shipped", shipment.totalCents()));
        return shipment;
    }
}
