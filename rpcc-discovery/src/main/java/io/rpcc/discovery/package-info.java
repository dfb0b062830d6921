/**
 * Name resolvers backed by service registries and DNS: {@link io.rpcc.discovery.EtcdNameResolver} turns
 * server names into the endpoints registered in etcd, and {@link io.rpcc.discovery.EtcdRegistration}
 * registers a node there under a lease that lapses when the node dies;
 * {@link io.rpcc.discovery.DnsNameResolver} turns them into the endpoints of their SRV records (by
 * priority: primary first, then backups) or their A/AAAA records (a pool), refreshed by the records' TTLs.
 *
 * <p>Everything here is non-null unless annotated {@link org.jspecify.annotations.Nullable}.
 */
@NullMarked
@UnstableApi
package io.rpcc.discovery;

import io.rpcc.core.UnstableApi;
import org.jspecify.annotations.NullMarked;
