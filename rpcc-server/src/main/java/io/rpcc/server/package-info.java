/**
 * Hosting service functions and running chain hops: {@link io.rpcc.server.RpccServer} (built, then
 * started), {@link io.rpcc.core.ServiceMethod} (service functions as annotated methods),
 * {@link io.rpcc.server.ServerStats}, and code around every hop: {@link io.rpcc.server.ServerInterceptor}
 * (around its stages) and {@link io.rpcc.server.HopDecorator} (around the whole hop, told its
 * {@link io.rpcc.server.HopOutcome}).
 *
 * <p>Everything here is non-null unless annotated {@link org.jspecify.annotations.Nullable}.
 */
@NullMarked
package io.rpcc.server;

import org.jspecify.annotations.NullMarked;
