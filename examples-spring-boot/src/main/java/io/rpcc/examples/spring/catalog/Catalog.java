package io.rpcc.examples.spring.catalog;

import io.rpcc.examples.spring.model.Order;
import io.rpcc.examples.spring.model.PricedOrder;
import io.rpcc.core.ServiceMethod;
import io.rpcc.spring.boot.RpccService;
import java.util.Map;

/** The catalog's service: the price of an order. */
@RpccService
public class Catalog {
    private static final Map<String, Long> PRICES_CENTS = Map.of("KB-42", 4999L, "MOUSE-7", 1999L);

    /** Prices {@code order}; an unknown SKU fails the chain with a ServiceFunctionException naming it. */
    @ServiceMethod("price")
    public PricedOrder price(Order order) {
        Long unit = PRICES_CENTS.get(order.sku());
        if (unit == null) {
            throw new IllegalArgumentException("no such product: " + order.sku());
        }
        return new PricedOrder(order, unit * order.quantity());
    }
}
