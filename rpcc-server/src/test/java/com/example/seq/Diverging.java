package com.example.seq;

import io.rpcc.core.ChainContext;
import io.rpcc.core.Hops;
import io.rpcc.core.SequentialChain;

/** Calls b where it runs without a chain (the client) and a where it runs in one: its replay diverges. */
public class Diverging implements SequentialChain<String, String> {
    @Override
    public String run(Hops hops, String input) {
        String server;
        try {
            ChainContext.current().chainId();
            server = "a";
        } catch (IllegalStateException outsideAChain) {
            server = "b";
        }
        return hops.at(server, Shop.class).name(input) + hops.at("c", Shop.class).name(input);
    }
}
