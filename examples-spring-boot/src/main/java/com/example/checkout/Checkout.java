package com.example.checkout;

import io.rpcc.core.ChainContext;
import io.rpcc.core.ChainState;
import io.rpcc.core.ChainingFunction;
import io.rpcc.core.NextHop;
import io.rpcc.examples.spring.model.PricedOrder;
import io.rpcc.examples.spring.model.Quote;
import io.rpcc.examples.spring.model.Shipment;

/**
 * The checkout chain's logic: an ordinary class of the application, checked by its IDE and compiler and
 * at build time by the rpcc-maven-plugin, shipped to the servers as source
 * ({@code ChainingFunctionSource.of(Checkout.class)}) and run at each server after the service function
 * of the hop there. It names the application's own types, which every node registers ({@code @RpccType}).
 *
 * <p>It lives in a package of the application's own, outside {@code io.rpcc}: a server refuses a
 * function that declares a class in rpcc's packages that its class loader also has.
 *
 * <p>After the catalog's {@code price}: tells the client the order is priced (a partial reply) and sends
 * the priced order on to shipping. After shipping's {@code ship}: tells the client it is shipped, and
 * ends the chain with the shipment, which goes straight back to the client.
 */
public class Checkout implements ChainingFunction {

    @Override
    public NextHop apply(ChainState state, Object result) {
        if (result instanceof PricedOrder priced) {
            ChainContext.current().preturn(new Quote(priced.order().id(), "priced", priced.totalCents()));
            return NextHop.call("shipping", "ship", priced, state);
        }
        Shipment shipment = (Shipment) result;
        ChainContext.current().preturn(new Quote(shipment.orderId(), "shipped", shipment.totalCents()));
        return NextHop.end(shipment);
    }
}
