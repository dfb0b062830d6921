package io.rpcc.spring.boot.health;

import io.rpcc.client.RpccClient;
import io.rpcc.core.NameResolver;
import io.rpcc.spring.boot.RpccNodeLifecycle;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import org.springframework.boot.health.contributor.Health;
import org.springframework.boot.health.contributor.HealthIndicator;

/**
 * The health of a client-only application (no rpcc server, e.g. {@code rpcc.server.enabled=false}), as
 * the actuator's {@code rpcc} health component: UP while the client runs and every peer it is
 * configured with ({@code rpcc.peers}) is reachable, DOWN otherwise, with each peer's state as details.
 * A peer is reachable if a TCP connection to one of the addresses the {@link NameResolver} gives for
 * it opens within the probe timeout (the connection is closed at once; the peer's server does not log
 * it). This says that the peers listen, not that their service functions work.
 *
 * <pre>
 * "rpcc": { "status": "DOWN", "details": { "name": "checkout-3f9a1c2e",
 *     "peers": { "catalog": { "reachable": true, "address": "127.0.0.1:7101", "millis": 1 },
 *                "shipping": { "reachable": false, "addresses": ["127.0.0.1:7102"],
 *                              "error": "java.net.ConnectException: Connection refused" } } } }
 * </pre>
 */
public final class RpccClientHealthIndicator implements HealthIndicator {
    /** How long one connection attempt may take, unless told otherwise. */
    public static final Duration DEFAULT_PROBE_TIMEOUT = Duration.ofSeconds(2);

    private final RpccClient client;
    private final RpccNodeLifecycle lifecycle;
    private final NameResolver names;
    private final List<String> peers;
    private final Duration probeTimeout;

    /**
     * The health of {@code client}, whose {@code lifecycle} says whether it runs, and of its {@code peers},
     * found with {@code names}, each probed within {@code probeTimeout}.
     */
    public RpccClientHealthIndicator(RpccClient client, RpccNodeLifecycle lifecycle, NameResolver names,
                                     List<String> peers, Duration probeTimeout) {
        this.client = Objects.requireNonNull(client, "client");
        this.lifecycle = Objects.requireNonNull(lifecycle, "lifecycle");
        this.names = Objects.requireNonNull(names, "names");
        this.peers = List.copyOf(peers);
        this.probeTimeout = Objects.requireNonNull(probeTimeout, "probeTimeout");
    }

    @Override
    public Health health() {
        if (!lifecycle.isRunning()) {
            return Health.down().withDetail("name", client.name())
                    .withDetail("reason", "the rpcc client is not started or is shutting down").build();
        }
        Map<String, CompletableFuture<Map<String, Object>>> probes = new LinkedHashMap<>();
        try (ExecutorService probing = Executors.newVirtualThreadPerTaskExecutor()) {
            for (String peer : peers) {
                probes.put(peer, CompletableFuture.supplyAsync(() -> probe(peer), probing));
            }
        }
        Map<String, Object> details = new LinkedHashMap<>();
        boolean allReachable = true;
        for (Map.Entry<String, CompletableFuture<Map<String, Object>>> probe : probes.entrySet()) {
            Map<String, Object> state = probe.getValue().join();
            allReachable &= Boolean.TRUE.equals(state.get("reachable"));
            details.put(probe.getKey(), state);
        }
        return (allReachable ? Health.up() : Health.down()).withDetail("name", client.name())
                .withDetail("transport", client.transport().name())
                .withDetail("peers", details).build();
    }

    private Map<String, Object> probe(String peer) {
        Map<String, Object> state = new LinkedHashMap<>();
        List<InetSocketAddress> addresses;
        try {
            addresses = names.resolveAll(peer);
        } catch (RuntimeException e) {
            state.put("reachable", false);
            state.put("error", "the name resolver failed: " + e);
            return state;
        }
        if (addresses.isEmpty()) {
            state.put("reachable", false);
            state.put("error", "the name resolver does not know '" + peer + "'");
            return state;
        }
        List<String> errors = new ArrayList<>();
        for (InetSocketAddress address : addresses) {
            long started = System.nanoTime();
            try (Socket socket = new Socket()) {
                socket.connect(address.isUnresolved()
                        ? new InetSocketAddress(address.getHostString(), address.getPort()) : address,
                        Math.toIntExact(probeTimeout.toMillis()));
                state.put("reachable", true);
                state.put("address", hostAndPort(address));
                state.put("millis", (System.nanoTime() - started) / 1_000_000);
                return state;
            } catch (IOException | RuntimeException e) {
                errors.add(hostAndPort(address) + ": " + e);
            }
        }
        state.put("reachable", false);
        state.put("addresses", addresses.stream().map(RpccClientHealthIndicator::hostAndPort).toList());
        state.put("error", errors.size() == 1 ? errors.getFirst().substring(errors.getFirst().indexOf(": ") + 2)
                : String.join("; ", errors));
        return state;
    }

    private static String hostAndPort(InetSocketAddress address) {
        return address.getHostString() + ":" + address.getPort();
    }
}
