package io.rpcc.spring.boot;

import java.time.Duration;
import java.util.Objects;
import java.util.function.Consumer;
import org.springframework.context.SmartLifecycle;

/**
 * Ties an rpcc node (the auto-configured {@code RpccServer} or {@code RpccClient}) to the application
 * context: the node starts once the context has refreshed, and when the context closes it drains
 * gracefully ({@code shutdown(grace)}: running hops and chains get up to the grace period) on a
 * thread of its own, so that other lifecycle beans of the same phase drain at the same time.
 *
 * <p>The server runs in phase {@link #SERVER_PHASE} (with the web server's graceful shutdown: both
 * stop taking work, then drain together) and the client in {@link #CLIENT_PHASE}, which starts
 * earlier and stops later, so that service methods and web requests still running may use the
 * client until they end.
 */
public final class RpccNodeLifecycle implements SmartLifecycle {
    /** The server's phase: the phase of Spring Boot's graceful shutdown of the web server. */
    public static final int SERVER_PHASE = SmartLifecycle.DEFAULT_PHASE - 1024;
    /** The client's phase: after the web server and the rpcc server have stopped. */
    public static final int CLIENT_PHASE = SmartLifecycle.DEFAULT_PHASE - 4096;

    private final String node;
    private final Runnable start;
    private final Consumer<Duration> shutdown;
    private final Duration grace;
    private final int phase;
    private volatile boolean running;

    /**
     * A lifecycle for {@code node}.
     *
     * @param node what the node is, for thread names and messages (e.g. "rpcc server 'catalog'")
     * @param start starts the node (and whatever goes with it, such as registering its address)
     * @param shutdown drains and closes the node within the duration it is given
     * @param grace how long the node may drain
     * @param phase the lifecycle phase
     */
    public RpccNodeLifecycle(String node, Runnable start, Consumer<Duration> shutdown, Duration grace, int phase) {
        this.node = Objects.requireNonNull(node, "node");
        this.start = Objects.requireNonNull(start, "start");
        this.shutdown = Objects.requireNonNull(shutdown, "shutdown");
        this.grace = Objects.requireNonNull(grace, "grace");
        this.phase = phase;
    }

    @Override
    public synchronized void start() {
        if (!running) {
            start.run();
            running = true;
        }
    }

    @Override
    public void stop() {
        if (beginStop()) {
            shutdown.accept(grace);
        }
    }

    @Override
    public void stop(Runnable callback) {
        if (!beginStop()) {
            callback.run();
            return;
        }
        Thread.ofPlatform().name("rpcc-shutdown-" + node).start(() -> {
            try {
                shutdown.accept(grace);
            } finally {
                callback.run();
            }
        });
    }

    private synchronized boolean beginStop() {
        boolean was = running;
        running = false;
        return was;
    }

    /** Whether the node is started and not stopping: it takes new work. */
    @Override
    public boolean isRunning() {
        return running;
    }

    @Override
    public int getPhase() {
        return phase;
    }

    /** How long the node may drain when the context closes. */
    public Duration grace() {
        return grace;
    }

    @Override
    public String toString() {
        return "RpccNodeLifecycle[" + node + ", phase " + phase + (running ? ", running" : "") + "]";
    }
}
