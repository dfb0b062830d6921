package com.example.seq;

import io.rpcc.core.Hops;
import io.rpcc.core.SequentialChain;

/** a.name → b.fail → c.name: b's service function throws. */
public class FailsInTheMiddle implements SequentialChain<String, String> {
    @Override
    public String run(Hops hops, String input) {
        String first = hops.at("a", Shop.class).name(input);
        String second = hops.at("b", Shop.class).fail(first);
        return hops.at("c", Shop.class).name(second);
    }
}
