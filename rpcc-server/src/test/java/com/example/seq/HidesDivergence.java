package com.example.seq;

import io.rpcc.core.ChainContext;
import io.rpcc.core.Hops;
import io.rpcc.core.SequentialChain;

/** Diverges as {@link Diverging} does, and catches what the diverging call throws. */
public class HidesDivergence implements SequentialChain<String, String> {
    @Override
    public String run(Hops hops, String input) {
        String server;
        try {
            ChainContext.current().chainId();
            server = "a";
        } catch (IllegalStateException outsideAChain) {
            server = "b";
        }
        try {
            return hops.at(server, Shop.class).name(input);
        } catch (RuntimeException e) {
            return "hidden";
        }
    }
}
