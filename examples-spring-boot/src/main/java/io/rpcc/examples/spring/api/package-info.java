/**
 * The sample's service interfaces: the catalog's server implements {@link io.rpcc.examples.spring.api.Pricing},
 * shipping's {@link io.rpcc.examples.spring.api.Carrier}, and the sequential checkout
 * ({@code com.example.checkout.SequentialCheckout}) calls them with typed calls.
 */
package io.rpcc.examples.spring.api;
