package com.example.seq;

import io.rpcc.core.Hops;
import io.rpcc.core.SequentialChain;

/** {@code calls} calls, round robin over a, b and c, each adding its index to the sum. */
public class ManyCalls implements SequentialChain<Integer, Long> {
    @Override
    public Long run(Hops hops, Integer calls) {
        long sum = 0;
        String[] servers = {"a", "b", "c"};
        for (int i = 0; i < calls; i++) {
            sum = hops.at(servers[i % 3], Shop.class).plus(sum, i);
        }
        return sum;
    }
}
