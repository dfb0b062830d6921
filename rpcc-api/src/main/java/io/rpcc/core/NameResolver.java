package io.rpcc.core;

import java.net.InetSocketAddress;
import java.util.List;
import java.util.Optional;

/**
 * Turns server names, as chaining functions write them, into socket addresses. Chaining functions
 * never name sockets, so a deployment can move servers without changing chains.
 *
 * <p>The default is {@link StaticNameResolver}; plug in another (DNS, a service registry, a
 * fail-over map) by implementing this interface. {@code resolve} runs on a worker thread, never on
 * an event loop, so it may block briefly.
 */
@FunctionalInterface
public interface NameResolver {
    /**
     * The address of {@code server}, or empty if this resolver does not know it.
     */
    Optional<InetSocketAddress> resolve(String server);

    /**
     * Every endpoint of {@code server}, in the order to try them: the primary first, then its backups
     * (or the members of a pool); empty if this resolver does not know it. A node sending a hop to
     * {@code server} tries the next endpoint when it cannot hand the hop to one (see
     * docs/guides/failover-and-discovery.md). The default is the one address of {@link #resolve}.
     */
    default List<InetSocketAddress> resolveAll(String server) {
        return resolve(server).map(List::of).orElse(List.of());
    }
}
