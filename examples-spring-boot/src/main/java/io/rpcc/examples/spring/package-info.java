/**
 * A sample of rpcc's Spring Boot starter: three Spring Boot applications, {@code catalog} and
 * {@code shipping} (servers with {@code @RpccService} beans) and {@code checkout} (a client with a web
 * endpoint), and one chain across them: checkout → catalog → shipping → checkout, steered by the Java
 * chaining function {@code com.example.checkout.Checkout}, which sends a partial reply from each server.
 * Each application is packaged as a Boot jar of its own and run with {@code java -jar}.
 */
package io.rpcc.examples.spring;
