package com.acme;

import io.rpcc.core.ChainState;
import io.rpcc.core.ChainingFunction;
import io.rpcc.core.NextHop;

/** Compiles, but reads a file: the sandbox refuses it. */
public class Checkout implements ChainingFunction {
    @Override
    public NextHop apply(ChainState state, Object result) {
        Order order = state.get("order", Order.class);
        boolean secret = new java.io.File("/etc/passwd").exists();
        return NextHop.end(secret ? null : order);
    }
}
