package io.rpcc.examples.spring.model;

/** An order for {@code quantity} of {@code sku}, shipped to {@code country}. */
public record Order(String id, String sku, int quantity, String country) {
}
