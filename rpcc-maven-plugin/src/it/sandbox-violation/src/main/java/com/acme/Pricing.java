package com.acme;

import io.rpcc.core.ChainState;
import io.rpcc.core.ChainingFunction;
import io.rpcc.core.NextHop;

/** A public class that is no chaining function. */
public class Pricing {
    public static long cents(Order order) {
        return order.cents();
    }
}

/** A chaining function with no source file of its own (Discount.java): a server could not receive it. */
class Discount implements ChainingFunction {
    @Override
    public NextHop apply(ChainState state, Object result) {
        return NextHop.end(result);
    }
}
