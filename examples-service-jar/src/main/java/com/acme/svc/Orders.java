package com.acme.svc;

import io.rpcc.core.ServiceMethod;

/**
 * The order desk as a service interface: {@link OrderDesk} implements it and the node registers it
 * by the class's name ({@code rpcc.services.classes}); a sequential chain calls it with
 * {@code hops.at(node, Orders.class).order(id)}.
 */
public interface Orders {
    /** The order with this id (service function {@code order}). */
    @ServiceMethod("order")
    Order order(String id);
}
