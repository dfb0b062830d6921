package io.rpcc.testcontainers;

import io.rpcc.core.ChainContext;
import io.rpcc.core.ServiceMethod;

/** The service functions the node containers of {@link RpccNodeContainerTest} load (through {@code withServices}). */
public class ChainServices {
    /** {@code "hello <who> from <node>"}. */
    @ServiceMethod("hello")
    public String hello(String who) {
        return "hello " + who + " from " + ChainContext.current().node();
    }

    /** Sends {@code n} partial replies {@code "<node>:<i>"}, then returns {@code n}. */
    @ServiceMethod("count")
    public Integer count(Integer n) {
        ChainContext ctx = ChainContext.current();
        for (int i = 1; i <= n; i++) {
            ctx.preturn(ctx.node() + ":" + i);
        }
        return n;
    }

    /** Sends {@code n} partial replies, then fails. */
    @ServiceMethod("count-then-fail")
    public Integer countThenFail(Integer n) {
        count(n);
        throw new IllegalStateException("failed after " + n + " replies");
    }
}
