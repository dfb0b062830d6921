package io.rpcc.examples.quickstart;

import io.rpcc.core.Hops;
import io.rpcc.core.SequentialChain;

/**
 * The checkout chain written as straight-line code: the same hops as the continuation-style
 * {@code chains/Checkout.java} (gateway.region → inventory-(region).reserve → pricing.quote → end),
 * the same result and the same path. Each call through {@code hops} is a hop, run server to server;
 * the quote goes from pricing straight to the client.
 */
public class SequentialCheckout implements SequentialChain<Order, Quote> {
    @Override
    public Quote run(Hops hops, Order order) {
        String region = hops.at("gateway", Gateway.class).region(order);
        String inventory = "inventory-" + region;
        hops.console().println("order " + order.id() + " ships from region " + region + ", asking " + inventory);
        String warehouse = hops.at(inventory, Inventory.class).reserve(order);
        hops.console().println("reserved " + order.quantity() + " x " + order.sku() + " at " + warehouse);
        long cents = hops.at("pricing", Pricing.class).quote(order);
        return new Quote(order.id(), warehouse, cents);
    }
}
