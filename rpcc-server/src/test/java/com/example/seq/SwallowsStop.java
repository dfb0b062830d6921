package com.example.seq;

import io.rpcc.core.Hops;
import io.rpcc.core.SequentialChain;

/** Returns from a finally block: the stop at its second call does not end run(). */
public class SwallowsStop implements SequentialChain<String, String> {
    @Override
    @SuppressWarnings("finally")
    public String run(Hops hops, String input) {
        String first = hops.at("a", Shop.class).name(input);
        try {
            return hops.at("b", Shop.class).name(first);
        } finally {
            return "swallowed";
        }
    }
}
