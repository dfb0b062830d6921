/**
 * How {@link io.rpcc.observability.RpccTracing} records chains: the client's chain decorator
 * ({@code ChainTracingDecorator}), the server's hop decorator ({@code HopTracingDecorator}) and
 * interceptor ({@code HopTracingInterceptor}), and the chain's metadata as the carrier of the trace
 * context ({@code MetadataCarrier}).
 *
 * <p>Implementation, not API: anything in this package may change or disappear at any time, in any
 * release, and applications must not use it.
 */
@NullMarked
package io.rpcc.observability.internal;

import org.jspecify.annotations.NullMarked;
