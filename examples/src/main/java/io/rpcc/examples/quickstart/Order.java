package io.rpcc.examples.quickstart;

/**
 * An order, a user type that travels in chains: registered on every node with
 * {@link io.rpcc.core.TypeRegistry}.
 *
 * @param id the order's id
 * @param country where it ships, as an ISO code
 * @param sku the item
 * @param quantity how many
 */
public record Order(String id, String country, String sku, int quantity) {
}
