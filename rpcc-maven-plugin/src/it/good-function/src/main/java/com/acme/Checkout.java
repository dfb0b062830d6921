package com.acme;

import io.rpcc.core.ChainState;
import io.rpcc.core.ChainingFunction;
import io.rpcc.core.NextHop;

/**
 * After the shop's hop (its result: the order), sends the order to pricing; after pricing's hop
 * (its result: the price in cents), ends the chain with a receipt.
 */
public class Checkout implements ChainingFunction {
    @Override
    public NextHop apply(ChainState state, Object result) {
        if (!state.contains("order")) {
            Order order = (Order) result;
            return NextHop.call("pricing", "price", order, state.with("order", order));
        }
        Order order = state.get("order", Order.class);
        return NextHop.end(new Receipt(order.id(), (Long) result));
    }
}
