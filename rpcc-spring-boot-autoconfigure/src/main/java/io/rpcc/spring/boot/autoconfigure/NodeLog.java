package io.rpcc.spring.boot.autoconfigure;

import io.rpcc.client.RpccClient;
import io.rpcc.core.SocketTransport;
import io.rpcc.server.RpccServer;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.Locale;
import java.util.Map;
import java.util.function.Consumer;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

/**
 * The INFO lines of the auto-configured nodes starting and stopping, on the logger
 * {@code io.rpcc.spring.boot.autoconfigure.NodeLog}:
 *
 * <pre>
 * rpcc server 'catalog' started on /127.0.0.1:7101 (reached at 127.0.0.1:7101, transport nio), services: [price]
 * rpcc client 'checkout-3f9a1c2e' started on /127.0.0.1:41873 (transport nio), peers: {catalog=127.0.0.1:7101}
 * rpcc server 'catalog' stopping: running hops get up to 30000 ms
 * rpcc server 'catalog' stopped after 12 ms
 * </pre>
 */
final class NodeLog {
    private static final Log LOG = LogFactory.getLog(NodeLog.class);

    private NodeLog() {
    }

    static void serverStarted(RpccServer server, InetSocketAddress reachable) {
        if (LOG.isInfoEnabled()) {
            LOG.info("rpcc server '" + server.name() + "' started on " + server.address() + " (reached at "
                    + reachable.getHostString() + ":" + reachable.getPort() + ", transport " + transport(server.transport())
                    + "), services: " + server.services());
        }
    }

    static void clientStarted(RpccClient client, Map<String, String> peers) {
        if (LOG.isInfoEnabled()) {
            LOG.info("rpcc client '" + client.name() + "' started on " + client.address() + " (transport "
                    + transport(client.transport()) + "), peers: "
                    + (peers.isEmpty() ? "none configured (rpcc.peers)" : peers));
        }
    }

    private static String transport(SocketTransport transport) {
        return transport.name().toLowerCase(Locale.ROOT);
    }

    /** Logs {@code node} stopping, runs {@code shutdown} with {@code grace}, logs how long it took. */
    static void stopping(String kind, String name, Duration grace, Consumer<Duration> shutdown) {
        LOG.info("rpcc " + kind + " '" + name + "' stopping: running " + (kind.equals("server") ? "hops" : "chains")
                + " get up to " + grace.toMillis() + " ms");
        long started = System.nanoTime();
        try {
            shutdown.accept(grace);
        } finally {
            LOG.info("rpcc " + kind + " '" + name + "' stopped after " + (System.nanoTime() - started) / 1_000_000 + " ms");
        }
    }
}
