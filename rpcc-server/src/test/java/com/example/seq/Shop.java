package com.example.seq;

import io.rpcc.core.ServiceMethod;

/** A service interface of the sequential-chain tests: every test server implements it. */
public interface Shop {
    /** The server's name and the argument. */
    @ServiceMethod
    String name(String prefix);

    /** {@code a + b}: two parameters, passed as a list. */
    @ServiceMethod("add")
    long plus(long a, int b);

    /** A service function that fails on the servers that the test says. */
    @ServiceMethod
    String fail(String why);

    /** Blocks until the chain is cancelled. */
    @ServiceMethod
    String block(String why);

    /** Takes 400 ms. */
    @ServiceMethod
    String slow(String why);

    /** Not a service function: a sandboxed chain may not call it. */
    default String helper() {
        return "helper";
    }
}
