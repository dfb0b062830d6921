package com.example.seq;

import io.rpcc.core.Hops;
import io.rpcc.core.SequentialChain;

/** After its first call, loops for ever ("loop") or allocates without end ("allocate"). */
public class Spins implements SequentialChain<String, Long> {
    @Override
    public Long run(Hops hops, String mode) {
        hops.at("a", Shop.class).name(mode);
        long n = 0;
        if (mode.equals("loop")) {
            while (n >= 0) {
                n = (n + 1) % 1_000_000;
            }
        }
        java.util.List<long[]> kept = new java.util.ArrayList<>();
        while (kept.size() >= 0) {
            kept.add(new long[100_000]);
        }
        return n;
    }
}
