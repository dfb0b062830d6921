package io.rpcc.examples.spring.model;

import io.rpcc.core.RpccType;

/**
 * What the catalog read of an uploaded catalogue file: its name, how many product lines
 * ({@code SKU;cents}) it had, its size and its SHA-256 (hex), and the sum of its prices.
 */
@RpccType
public record CatalogueImport(String name, int products, long bytes, String sha256, long totalCents) {
}
