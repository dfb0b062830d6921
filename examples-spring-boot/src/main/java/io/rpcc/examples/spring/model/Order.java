package io.rpcc.examples.spring.model;

import io.rpcc.core.RpccType;

/** An order for {@code quantity} of {@code sku}, shipped to {@code country}. */
@RpccType
public record Order(String id, String sku, int quantity, String country) {
}
