package com.acme.svc;

import io.rpcc.core.RpccType;

/** What a {@link Stockroom} has of one SKU: the value of its transactional stock map. */
@RpccType
public record StockLevel(String sku, int onHand) {
}
