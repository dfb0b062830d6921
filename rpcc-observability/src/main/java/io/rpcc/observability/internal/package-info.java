/**
 * How {@link io.rpcc.observability.RpccTracing} records chains: the client's chain decorator
 * ({@code ChainTracingDecorator}), the server's hop decorator ({@code HopTracingDecorator}) and
 * interceptor ({@code HopTracingInterceptor}), and the chain's metadata as the carrier of the trace
 * context ({@code MetadataCarrier}); and how {@link io.rpcc.observability.RpccMetrics} measures them:
 * per chain at the client ({@code ChainMeters}), per hop at the server ({@code HopMeters}), and the
 * nodes' own counters read at each scrape ({@code NodeMeters}), named in {@code MeterNames}.
 *
 * <p>Implementation, not API: anything in this package may change or disappear at any time, in any
 * release, and applications must not use it.
 */
@NullMarked
package io.rpcc.observability.internal;

import org.jspecify.annotations.NullMarked;
