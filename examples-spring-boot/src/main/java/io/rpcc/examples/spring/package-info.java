/**
 * A sample of rpcc's Spring Boot starter: three Spring Boot applications, {@code catalog} and
 * {@code shipping} (servers with {@code @RpccService} beans) and {@code checkout} (a client), and one
 * chain across them: checkout → catalog → shipping → checkout.
 */
package io.rpcc.examples.spring;
