package com.acme;

import io.rpcc.core.Hops;
import io.rpcc.core.SequentialChain;

/** The same checkout as {@link Checkout}, as a sequential chain: checked and packaged alike. */
public class SequentialCheckout implements SequentialChain<String, Receipt> {
    @Override
    public Receipt run(Hops hops, String id) {
        Order order = hops.call("shop", "order", id, Order.class);
        long cents = hops.at("pricing", Pricing.class).price(order);
        return new Receipt(order.id(), cents);
    }
}
