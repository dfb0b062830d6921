package io.rpcc.core;

import java.net.InetSocketAddress;
import java.util.Map;
import java.util.Optional;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentHashMap;

/**
 * A {@link NameResolver} backed by a map. Entries can be added after construction, which suits
 * servers that bind ephemeral ports in tests.
 *
 * <pre>{@code
 * StaticNameResolver names = new StaticNameResolver()
 *     .register("inventory", new InetSocketAddress("10.0.0.5", 7001))
 *     .register("pricing", new InetSocketAddress("10.0.0.6", 7001));
 * }</pre>
 */
public final class StaticNameResolver implements NameResolver {
    private final Map<String, InetSocketAddress> addresses = new ConcurrentHashMap<>();

    /** An empty resolver. */
    public StaticNameResolver() {
    }

    /** A resolver holding a copy of {@code addresses}. */
    public StaticNameResolver(Map<String, InetSocketAddress> addresses) {
        this.addresses.putAll(addresses);
    }

    /** Maps {@code server} to {@code address}, replacing any earlier entry. */
    public StaticNameResolver register(String server, InetSocketAddress address) {
        addresses.put(server, address);
        return this;
    }

    /** Forgets {@code server}. */
    public StaticNameResolver unregister(String server) {
        addresses.remove(server);
        return this;
    }

    @Override
    public Optional<InetSocketAddress> resolve(String server) {
        return Optional.ofNullable(addresses.get(server));
    }

    @Override
    public String toString() {
        return "StaticNameResolver" + new TreeSet<>(addresses.keySet());
    }
}
