package com.example.seq;

import io.rpcc.core.Hops;
import io.rpcc.core.SequentialChain;

/** a.name → b.slow (400 ms) → c.name. */
public class SlowInTheMiddle implements SequentialChain<String, String> {
    @Override
    public String run(Hops hops, String input) {
        String first = hops.at("a", Shop.class).name(input);
        String second = hops.at("b", Shop.class).slow(first);
        return hops.at("c", Shop.class).name(second);
    }
}
