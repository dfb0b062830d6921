/**
 * A traced chain ({@link io.rpcc.examples.tracing.TracedOrder}): three servers and a client, each
 * traced by {@code RpccTracing} through Micrometer Tracing's Brave bridge
 * ({@link io.rpcc.examples.tracing.BraveNodeTracing}) and reported to a Zipkin server, where the chain
 * is one trace with the node names as service names.
 */
package io.rpcc.examples.tracing;
