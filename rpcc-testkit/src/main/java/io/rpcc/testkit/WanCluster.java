package io.rpcc.testkit;

import io.rpcc.client.RpccClient;
import io.rpcc.core.NameResolver;
import io.rpcc.core.TypeRegistry;
import io.rpcc.server.RpccServer;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.UnaryOperator;
import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * Real rpcc nodes on loopback, placed in emulated sites: every node reaches every other through
 * the {@link WanEmulator}'s link between their sites. A JUnit 5 extension (it closes the nodes and
 * the emulator after the test class), or an {@link AutoCloseable} anywhere else.
 *
 * <pre>{@code
 * @RegisterExtension
 * static final WanCluster wan = WanCluster.of(WanTopology.paperFigure7());
 *
 * @Test
 * void copy() {
 *     wan.server("storage-1", WanTopology.MOUNTAIN_VIEW, b -> b.service("read", ...));
 *     wan.server("storage-2", WanTopology.MOUNTAIN_VIEW, b -> b.service("write", ...));
 *     RpccClient client = wan.client("client", WanTopology.REDMOND);
 *     client.runChain(...);
 *     long viaClient = wan.emulator().bytesCarried(WanTopology.MOUNTAIN_VIEW, WanTopology.REDMOND);
 * }
 * }</pre>
 *
 * <p>Faults: {@link #kill} and {@link #restart} a server; cut, stall, reset links through
 * {@link #emulator()} (see {@link WanEmulator}).
 */
public final class WanCluster implements AfterAllCallback, AutoCloseable {
    private record Placement(String site, InetSocketAddress address) {
    }

    /** How a server started by {@link #server} was built, to {@link #restart} it alike. */
    private record ServerSpec(String site, UnaryOperator<RpccServer.Builder> config, InetSocketAddress address) {
    }

    private final WanEmulator emulator;
    private final TypeRegistry types;
    private final Map<String, Placement> placements = new ConcurrentHashMap<>();
    /** Backup endpoints of names, in the order added (see {@link #backup}). */
    private final Map<String, List<Placement>> backups = new ConcurrentHashMap<>();
    private final List<AutoCloseable> nodes = new ArrayList<>();
    private final Map<String, ServerSpec> specs = new ConcurrentHashMap<>();
    /** The servers started by {@link #server} (or restarted) and not killed, by name. */
    private final Map<String, RpccServer> running = new ConcurrentHashMap<>();

    private WanCluster(WanTopology topology, TypeRegistry types) {
        this.emulator = new WanEmulator(topology);
        this.types = types;
    }

    /** A cluster over {@code topology}, with no user types. */
    public static WanCluster of(WanTopology topology) {
        return new WanCluster(topology, TypeRegistry.empty());
    }

    /** A cluster over {@code topology} whose nodes register {@code types}. */
    public static WanCluster of(WanTopology topology, TypeRegistry types) {
        return new WanCluster(topology, types);
    }

    /** The emulator, for byte counts per link. */
    public WanEmulator emulator() {
        return emulator;
    }

    /** The resolver of a node in {@code site}: every name maps to the proxy over the right link. */
    public NameResolver resolverFor(String site) {
        return new NameResolver() {
            @Override
            public Optional<InetSocketAddress> resolve(String name) {
                Placement p = placements.get(name);
                return p == null ? Optional.empty() : Optional.of(emulator.proxy(site, p.site(), p.address()));
            }

            @Override
            public List<InetSocketAddress> resolveAll(String name) {
                Placement p = placements.get(name);
                if (p == null) {
                    return List.of();
                }
                List<InetSocketAddress> all = new ArrayList<>();
                all.add(emulator.proxy(site, p.site(), p.address()));
                for (Placement b : backups.getOrDefault(name, List.of())) {
                    all.add(emulator.proxy(site, b.site(), b.address()));
                }
                return all;
            }
        };
    }

    /**
     * Starts a backup of the server named {@code name} in {@code site}: a node of the same name that
     * resolvers give after the primary (and earlier backups), so that a hop the primary cannot take
     * fails over to it (see {@code NodeBuilder.outlierEjection}).
     */
    public RpccServer backup(String name, String site, UnaryOperator<RpccServer.Builder> config) {
        emulator.topology().link(site, site);
        RpccServer s = config.apply(RpccServer.builder(name).types(types).resolver(resolverFor(site))).build().start();
        backups.computeIfAbsent(name, n -> new CopyOnWriteArrayList<>()).add(new Placement(site, s.address()));
        synchronized (nodes) {
            nodes.add(s);
        }
        return s;
    }

    /** Starts a server named {@code name} in {@code site}. */
    public RpccServer server(String name, String site, UnaryOperator<RpccServer.Builder> config) {
        emulator.topology().link(site, site); // fail fast on an unknown site
        RpccServer s = config.apply(RpccServer.builder(name).types(types).resolver(resolverFor(site))).build().start();
        placements.put(name, new Placement(site, s.address()));
        specs.put(name, new ServerSpec(site, config, s.address()));
        running.put(name, s);
        synchronized (nodes) {
            nodes.add(s);
        }
        return s;
    }

    /**
     * Kills the server named {@code name} (started by {@link #server}, not a {@link #backup}): it
     * closes at once ({@link RpccServer#close()}: no grace for its hops, its connections closed),
     * and its port is free. Through the emulator, nodes reaching for it then find nothing behind
     * the proxy: their connections are closed as soon as they open, and a hop to it fails with a
     * {@code HopUnreachableException} (a client that diagnoses broken chains throws a
     * {@code BrokenChainException} caused by it). {@link #restart} brings it back at the same address.
     *
     * @throws IllegalStateException if no server of that name is running
     */
    public void kill(String name) {
        RpccServer s = running.remove(name);
        if (s == null) {
            throw new IllegalStateException("no running server '" + name + "' (running: " + running.keySet() + ")");
        }
        s.close();
        synchronized (nodes) {
            nodes.remove(s);
        }
    }

    /**
     * Starts a fresh server in place of the {@link #kill}ed one named {@code name}: same name, site
     * and configuration function, listening on the same address, so that the proxies leading to it
     * (and every resolver's answer) work again. The new server has none of the old one's state.
     *
     * @return the new server
     * @throws IllegalStateException if no server of that name was started here, or it is running
     */
    public RpccServer restart(String name) {
        ServerSpec spec = specs.get(name);
        if (spec == null) {
            throw new IllegalStateException("no server '" + name + "' was started here (servers: " + specs.keySet() + ")");
        }
        if (running.containsKey(name)) {
            throw new IllegalStateException("server '" + name + "' is running: kill it first");
        }
        RpccServer s = spec.config().apply(RpccServer.builder(name).types(types).resolver(resolverFor(spec.site())))
                .listen(spec.address()).build().start();
        running.put(name, s);
        synchronized (nodes) {
            nodes.add(s);
        }
        return s;
    }

    /** Starts a client named {@code name} in {@code site}. */
    public RpccClient client(String name, String site) {
        return client(name, site, b -> b);
    }

    /** Starts a client named {@code name} in {@code site}, configured by {@code config}. */
    public RpccClient client(String name, String site, UnaryOperator<RpccClient.Builder> config) {
        emulator.topology().link(site, site);
        RpccClient c = config.apply(RpccClient.builder().name(name).types(types).resolver(resolverFor(site))
                .timeout(Duration.ofSeconds(60))).build().start();
        placements.put(name, new Placement(site, c.address()));
        synchronized (nodes) {
            nodes.add(c);
        }
        return c;
    }

    @Override
    public void afterAll(ExtensionContext context) {
        close();
    }

    /** Closes every node, then the emulator. */
    @Override
    public void close() {
        synchronized (nodes) {
            for (AutoCloseable n : nodes) {
                try {
                    n.close();
                } catch (Exception e) {
                    // closing anyway
                }
            }
            nodes.clear();
        }
        placements.clear();
        backups.clear();
        specs.clear();
        running.clear();
        emulator.close();
    }
}
