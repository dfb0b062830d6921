/**
 * The checkout application of the Spring Boot sample: a client only, whose web endpoint
 * ({@link io.rpcc.examples.spring.checkout.CheckoutController}) starts one chain per order through
 * catalog and shipping ({@link io.rpcc.examples.spring.checkout.CheckoutService}) and streams its
 * partial replies and result as server-sent events.
 */
package io.rpcc.examples.spring.checkout;
