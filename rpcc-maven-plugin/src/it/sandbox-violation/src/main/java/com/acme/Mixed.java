package com.acme;

import io.rpcc.core.ChainState;
import io.rpcc.core.ChainingFunction;
import io.rpcc.core.NextHop;
import java.util.List;

/** Names no refused type, but javac infers one for the mixed list (its values' common supertype). */
public class Mixed implements ChainingFunction {
    @Override
    public NextHop apply(ChainState state, Object result) {
        var items = List.of("a", 1L, "b");
        var first = items.get(0);
        return NextHop.end(first.toString());
    }
}
