package io.rpcc.node.internal;

import io.rpcc.core.NameResolver;
import java.net.InetSocketAddress;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;
import org.jspecify.annotations.Nullable;

/**
 * The node's name resolver, from {@code rpcc.peers} ({@code name=host:port,...}) plus the node
 * itself. Host names are looked up on every resolve (the JDK caches lookups), so a peer whose
 * container starts later, or comes back with another address, is found.
 */
public final class PeerResolver implements NameResolver {
    private static final String EXPECTED = "comma-separated name=host:port entries, such as "
            + "inventory=10.0.0.5:7300,pricing=pricing.internal:7300";

    private record Peer(String host, int port) {
    }

    private record Self(String name, InetSocketAddress address) {
    }

    private final Map<String, Peer> peers;
    private volatile @Nullable Self self;

    private PeerResolver(Map<String, Peer> peers) {
        this.peers = peers;
    }

    /** Parses {@code rpcc.peers}. */
    static PeerResolver parse(ConfigValues values) {
        Map<String, Peer> peers = new LinkedHashMap<>();
        String text = values.text(ConfigKey.PEERS);
        if (text == null) {
            return new PeerResolver(peers);
        }
        for (String entry : text.split(",")) {
            String e = entry.trim();
            if (e.isEmpty()) {
                continue;
            }
            int eq = e.indexOf('=');
            int colon = e.lastIndexOf(':');
            if (eq <= 0 || colon < eq + 2 || colon == e.length() - 1) {
                throw values.invalid(ConfigKey.PEERS, EXPECTED + " ('" + e + "' is not name=host:port)");
            }
            String name = e.substring(0, eq).trim();
            String host = e.substring(eq + 1, colon).trim();
            if (host.startsWith("[") && host.endsWith("]")) {
                host = host.substring(1, host.length() - 1); // [::1]:7300
            }
            int port;
            try {
                port = Integer.parseInt(e.substring(colon + 1).trim());
            } catch (NumberFormatException ex) {
                port = -1;
            }
            if (port < 1 || port > 65_535) {
                throw values.invalid(ConfigKey.PEERS, EXPECTED + " ('" + e + "' has no port from 1 to 65535)");
            }
            if (peers.putIfAbsent(name, new Peer(host, port)) != null) {
                throw values.invalid(ConfigKey.PEERS, EXPECTED + ", each name once ('" + name + "' appears twice)");
            }
        }
        return new PeerResolver(peers);
    }

    /** Whether {@code name} is one of the configured peers. */
    boolean knows(String name) {
        return peers.containsKey(name);
    }

    /** Resolves the node's own name to {@code address} too, unless a peer entry names it. */
    public void registerSelf(String name, InetSocketAddress address) {
        this.self = new Self(name, address);
    }

    @Override
    public Optional<InetSocketAddress> resolve(String server) {
        Peer p = peers.get(server);
        if (p != null) {
            return Optional.of(new InetSocketAddress(p.host, p.port));
        }
        Self s = self;
        return s != null && s.name.equals(server) ? Optional.of(s.address) : Optional.empty();
    }

    @Override
    public String toString() {
        return "PeerResolver" + peers.keySet();
    }
}
