/**
 * The catalog application of the Spring Boot sample: a server whose service function {@code price}
 * prices an order ({@link io.rpcc.examples.spring.catalog.Catalog}).
 */
package io.rpcc.examples.spring.catalog;
