package com.acme.svc;

import io.rpcc.core.ServiceMethod;

/**
 * The stock side of the atomic order chain ({@link Stockroom} implements it). Called in an atomic
 * chain, its methods take part in the chain's transaction; called in an ordinary chain, {@code level}
 * reads the committed stock and {@code takeStock} is refused.
 */
public interface Warehouse {
    /** Takes the order's lines from the stock, or throws if a SKU has too few (which aborts the whole chain). */
    @ServiceMethod
    Reservation takeStock(Order order);

    /** The stock of one SKU (a SKU it does not know has none). */
    @ServiceMethod
    StockLevel level(String sku);
}
