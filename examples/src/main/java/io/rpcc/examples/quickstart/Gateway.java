package io.rpcc.examples.quickstart;

import io.rpcc.core.ServiceMethod;

/** The gateway's service interface: which region ships an order. */
public interface Gateway {
    /** The region ({@code "eu"} or {@code "us"}) whose inventory ships {@code order}. */
    @ServiceMethod
    String region(Order order);
}
