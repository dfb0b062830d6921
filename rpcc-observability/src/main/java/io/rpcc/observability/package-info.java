/**
 * Seeing chains: traces ({@link io.rpcc.observability.RpccTracing}: one trace per chain through
 * Micrometer Observation, with the W3C trace context carried in the chain's metadata) and metrics
 * ({@link io.rpcc.observability.RpccMetrics}: Micrometer meters of chains, hops, replies, functions
 * and connections). Both are off unless applied to a server's or client's builder. The names of the
 * observations, spans, attributes and events are in {@link io.rpcc.observability.RpccObservations}.
 */
@NullMarked
package io.rpcc.observability;

import org.jspecify.annotations.NullMarked;
