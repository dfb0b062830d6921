package io.rpcc.examples.spring.api;

import io.rpcc.core.ServiceMethod;
import io.rpcc.examples.spring.model.Order;
import io.rpcc.examples.spring.model.PricedOrder;
import io.rpcc.examples.spring.model.StockLevel;

/** The catalog's stock, for atomic checkouts: service functions "reserve" and "stock". */
public interface Inventory {
    /** Prices {@code order} and takes its quantity from the stock; fails if there is too little (in an atomic chain only). */
    @ServiceMethod("reserve")
    PricedOrder reserve(Order order);

    /** The stock of {@code sku} (none for an unknown SKU). */
    @ServiceMethod("stock")
    StockLevel stock(String sku);
}
