package com.example.seq;

import io.rpcc.core.Hops;
import io.rpcc.core.SequentialChain;

/** Catches everything around its second call. */
public class CatchesThrowable implements SequentialChain<String, String> {
    @Override
    public String run(Hops hops, String input) {
        String first = hops.at("a", Shop.class).name(input);
        try {
            return hops.at("b", Shop.class).name(first);
        } catch (Throwable t) {
            return "caught";
        }
    }
}
