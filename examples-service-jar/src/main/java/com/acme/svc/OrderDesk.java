package com.acme.svc;

import io.rpcc.core.ServiceMethod;
import java.util.List;

/** A {@code @ServiceMethod} class: the node instantiates it by name ({@code rpcc.services.classes=com.acme.svc.OrderDesk}). */
public class OrderDesk {
    /** The order with this id: two lines for customer {@code "ada"}. */
    @ServiceMethod("order")
    public Order order(String id) {
        return new Order(id, "ada", List.of(new Line("pen", 3, 150), new Line("ink", 2, 900)));
    }
}
