package com.acme.checkout;

import com.acme.svc.CheckoutPlan;
import com.acme.svc.Order;
import com.acme.svc.Orders;
import com.acme.svc.Pricing;
import com.acme.svc.Quote;
import com.acme.svc.Receipt;
import com.acme.svc.Stock;
import io.rpcc.core.Hops;
import io.rpcc.core.SequentialChain;

/**
 * The checkout as a sequential chain: straight-line typed calls through the service jar's interfaces
 * ({@link Orders}, {@link Pricing}, {@link Stock}) and types. Each call is a hop, run server to server;
 * the nodes compile this source (shipped with the chain) against the service jar and replay it.
 */
public class SequentialCheckout implements SequentialChain<CheckoutPlan, Receipt> {
    @Override
    public Receipt run(Hops hops, CheckoutPlan plan) {
        Order order = hops.at(plan.desk(), Orders.class).order(plan.orderId());
        Quote quote = hops.at(plan.pricing(), Pricing.class).quote(order);
        hops.console().println("quoted " + quote.totalCents() + " cents for " + order.customer());
        return hops.at(plan.stock(), Stock.class).hold(quote, order);
    }
}
