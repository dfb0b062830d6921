package io.rpcc.spring.boot.health;

import io.rpcc.server.RpccServer;
import io.rpcc.server.ServerStats;
import io.rpcc.spring.boot.RpccNodeLifecycle;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;
import org.springframework.boot.health.contributor.Health;
import org.springframework.boot.health.contributor.HealthIndicator;

/**
 * The auto-configured server's health, as the actuator's {@code rpcc} health component: UP while the
 * server listens and takes hops, DOWN before it has started and once it is shutting down; with its
 * name, address and counters ({@link ServerStats}) as details.
 *
 * <pre>
 * "rpcc": { "status": "UP", "details": { "name": "catalog", "address": "/127.0.0.1:7001",
 *           "connectionsOpen": 2, "framesReceived": 118, "malformedFrames": 0, ... } }
 * </pre>
 */
public final class RpccServerHealthIndicator implements HealthIndicator {
    private final RpccServer server;
    private final RpccNodeLifecycle lifecycle;

    /** The health of {@code server}, whose {@code lifecycle} says whether it takes hops. */
    public RpccServerHealthIndicator(RpccServer server, RpccNodeLifecycle lifecycle) {
        this.server = Objects.requireNonNull(server, "server");
        this.lifecycle = Objects.requireNonNull(lifecycle, "lifecycle");
    }

    @Override
    public Health health() {
        if (!lifecycle.isRunning()) {
            return Health.down().withDetail("name", server.name())
                    .withDetail("reason", "the rpcc server is not started or is shutting down").build();
        }
        ServerStats stats = server.stats();
        Map<String, Long> refusals = new LinkedHashMap<>();
        stats.refusals().forEach((kind, count) -> refusals.put(kind.name(), count));
        return Health.up()
                .withDetail("name", server.name())
                .withDetail("address", server.address().toString())
                .withDetail("transport", server.transport().name())
                .withDetail("connectionsOpen", stats.connectionsOpen())
                .withDetail("framesReceived", stats.framesReceived())
                .withDetail("malformedFrames", stats.malformedFrames())
                .withDetail("refusals", refusals)
                .withDetail("functionCacheHits", stats.functionCacheHits())
                .withDetail("functionCacheMisses", stats.functionCacheMisses())
                .withDetail("functionFetches", stats.functionFetches())
                .withDetail("abandonedSandboxThreads", stats.abandonedSandboxThreads())
                .withDetail("droppedBranchOutcomes", stats.droppedBranchOutcomes())
                .build();
    }
}
