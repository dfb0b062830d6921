/**
 * Hosting service functions and running chain hops: {@link io.rpcc.server.RpccServer} (built, then
 * started), {@link io.rpcc.server.ServiceMethod} (service functions as annotated methods) and
 * {@link io.rpcc.server.ServerStats}.
 *
 * <p>Everything here is non-null unless annotated {@link org.jspecify.annotations.Nullable}.
 */
@NullMarked
package io.rpcc.server;

import org.jspecify.annotations.NullMarked;
