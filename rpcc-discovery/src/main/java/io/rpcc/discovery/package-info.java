/**
 * Name resolvers backed by service registries: {@link io.rpcc.discovery.EtcdNameResolver} turns
 * server names into the endpoints registered in etcd, and {@link io.rpcc.discovery.EtcdRegistration}
 * registers a node there under a lease that lapses when the node dies.
 *
 * <p>Everything here is non-null unless annotated {@link org.jspecify.annotations.Nullable}.
 */
@NullMarked
@UnstableApi
package io.rpcc.discovery;

import io.rpcc.core.UnstableApi;
import org.jspecify.annotations.NullMarked;
