package io.rpcc.examples.spring.model;

import io.rpcc.core.RpccType;

/** What the catalog's warehouse has of one SKU: the value of its transactional stock map. */
@RpccType
public record StockLevel(String sku, int onHand) {
}
