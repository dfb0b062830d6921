package com.acme;

import io.rpcc.core.ChainState;
import io.rpcc.core.ChainingFunction;
import io.rpcc.core.NextHop;

/** Reads a file: fine for a node without a sandbox. */
public class Checkout implements ChainingFunction {
    @Override
    public NextHop apply(ChainState state, Object result) {
        return NextHop.end(new java.io.File("/etc/hostname").exists());
    }
}
