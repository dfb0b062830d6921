/**
 * The shipping application of the Spring Boot sample: a server whose service function {@code ship}
 * picks a carrier for a priced order ({@link io.rpcc.examples.spring.shipping.Shipping}).
 */
package io.rpcc.examples.spring.shipping;
