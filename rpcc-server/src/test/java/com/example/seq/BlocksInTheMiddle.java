package com.example.seq;

import io.rpcc.core.Hops;
import io.rpcc.core.SequentialChain;

/** a.name → b.block (until cancelled) → c.name. */
public class BlocksInTheMiddle implements SequentialChain<String, String> {
    @Override
    public String run(Hops hops, String input) {
        String first = hops.at("a", Shop.class).name(input);
        String second = hops.at("b", Shop.class).block(first);
        return hops.at("c", Shop.class).name(second);
    }
}
