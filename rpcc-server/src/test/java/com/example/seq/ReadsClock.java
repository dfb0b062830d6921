package com.example.seq;

import io.rpcc.core.Hops;
import io.rpcc.core.SequentialChain;

/** Chooses its server by the clock: refused by the sandbox in a sequential chain. */
public class ReadsClock implements SequentialChain<String, String> {
    @Override
    public String run(Hops hops, String input) {
        String server = System.nanoTime() % 2 == 0 ? "a" : "b";
        return hops.at(server, Shop.class).name(input);
    }
}
