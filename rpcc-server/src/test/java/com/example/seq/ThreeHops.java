package com.example.seq;

import io.rpcc.core.Hops;
import io.rpcc.core.SequentialChain;
import java.util.List;

/** a → b → c with typed calls, the second server chosen from the first's result, console and replies. */
public class ThreeHops implements SequentialChain<String, List<Object>> {
    @Override
    public List<Object> run(Hops hops, String input) {
        hops.console().println("start " + input);
        hops.preturn("before a");
        String first = hops.at("a", Shop.class).name(input);
        hops.console().println("a said " + first);
        String next = first.startsWith("a:") ? "b" : "c";
        long sum = hops.at(next, Shop.class).plus(40L, 2);
        hops.preturn("after " + next);
        String last = hops.call("c", "name", "z", String.class);
        hops.console().println("c said " + last);
        return List.<Object>of(first, sum, last, hops.calls());
    }
}
