package io.rpcc.core;

import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
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
 *     .register("pricing", new InetSocketAddress("10.0.0.6", 7001), new InetSocketAddress("10.0.1.6", 7001));
 * }</pre>
 *
 * <p>A name may have several endpoints, a primary and its backups in the order to try them.
 */
public final class StaticNameResolver implements NameResolver {
    private final Map<String, List<InetSocketAddress>> addresses = new ConcurrentHashMap<>();

    /** An empty resolver. */
    public StaticNameResolver() {
    }

    /** A resolver holding a copy of {@code addresses}. */
    public StaticNameResolver(Map<String, InetSocketAddress> addresses) {
        addresses.forEach(this::register);
    }

    /** Maps {@code server} to {@code address}, replacing any earlier entry. */
    public StaticNameResolver register(String server, InetSocketAddress address) {
        addresses.put(server, List.of(address));
        return this;
    }

    /**
     * Maps {@code server} to {@code primary} and then {@code backups}, tried in that order, replacing
     * any earlier entry.
     */
    public StaticNameResolver register(String server, InetSocketAddress primary, InetSocketAddress... backups) {
        List<InetSocketAddress> all = new ArrayList<>(1 + backups.length);
        all.add(primary);
        all.addAll(Arrays.asList(backups));
        addresses.put(server, List.copyOf(all));
        return this;
    }

    /** Forgets {@code server}. */
    public StaticNameResolver unregister(String server) {
        addresses.remove(server);
        return this;
    }

    @Override
    public Optional<InetSocketAddress> resolve(String server) {
        List<InetSocketAddress> all = addresses.get(server);
        return all == null ? Optional.empty() : Optional.of(all.getFirst());
    }

    @Override
    public List<InetSocketAddress> resolveAll(String server) {
        return addresses.getOrDefault(server, List.of());
    }

    @Override
    public String toString() {
        return "StaticNameResolver" + new TreeSet<>(addresses.keySet());
    }
}
