package com.acme;

import io.rpcc.core.ChainState;
import io.rpcc.core.ChainingFunction;
import io.rpcc.core.NextHop;

/** Prices the order at the first hop, then ends the chain with the order at its price. */
public class Checkout implements ChainingFunction {
    @Override
    public NextHop apply(ChainState state, Object result) {
        Order order = state.get("order", Order.class);
        if (!state.contains("priced")) {
            return NextHop.call("pricing", "price", order, state.with("priced", true));
        }
        return NextHop.end(new Order(order.id(), (Long) result));
    }
}
