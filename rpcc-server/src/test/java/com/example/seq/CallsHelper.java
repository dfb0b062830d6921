package com.example.seq;

import io.rpcc.core.Hops;
import io.rpcc.core.SequentialChain;

/** Calls a default method of a service interface: not a service function, refused by the sandbox. */
public class CallsHelper implements SequentialChain<String, String> {
    @Override
    public String run(Hops hops, String input) {
        return hops.at("a", Shop.class).name(input) + hops.at("b", Shop.class).helper();
    }
}
