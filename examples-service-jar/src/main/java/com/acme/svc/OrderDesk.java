package com.acme.svc;

import java.util.List;

/**
 * The {@link Orders} service interface's implementation: the node instantiates it by name
 * ({@code rpcc.services.classes=com.acme.svc.OrderDesk}) and registers {@code order}, annotated on the interface.
 */
public class OrderDesk implements Orders {
    /** The order with this id: two lines for customer {@code "ada"}. */
    @Override
    public Order order(String id) {
        return new Order(id, "ada", List.of(new Line("pen", 3, 150), new Line("ink", 2, 900)));
    }
}
