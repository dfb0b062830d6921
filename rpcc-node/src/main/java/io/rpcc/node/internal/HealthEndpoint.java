package io.rpcc.node.internal;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.function.Supplier;
import org.jspecify.annotations.Nullable;

/**
 * The node's health endpoint, on the JDK's HTTP server: {@code GET /live} answers 200 while the
 * process runs; {@code GET /ready} answers 200 once the node listens and 503 while it starts or
 * drains; {@code GET /metrics}, if the node has metrics, answers the node's meters in Prometheus' text
 * format. Anything else is 404, methods other than GET and HEAD 405.
 */
public final class HealthEndpoint implements AutoCloseable {
    private final HttpServer http;
    private final @Nullable Supplier<String> metrics;
    private volatile boolean ready;

    private HealthEndpoint(HttpServer http, @Nullable Supplier<String> metrics) {
        this.http = http;
        this.metrics = metrics;
    }

    /** Starts the endpoint on {@code host:port}, not ready yet, without {@code /metrics}. */
    public static HealthEndpoint start(String host, int port) throws IOException {
        return start(host, port, null);
    }

    /**
     * Starts the endpoint on {@code host:port}, not ready yet; {@code /metrics} answers what {@code metrics}
     * gives (Prometheus' text format), or 404 if it is {@code null}.
     */
    public static HealthEndpoint start(String host, int port, @Nullable Supplier<String> metrics) throws IOException {
        HttpServer http = HttpServer.create(new InetSocketAddress(host, port), 16);
        HealthEndpoint endpoint = new HealthEndpoint(http, metrics);
        http.createContext("/", endpoint::handle);
        http.start();
        return endpoint;
    }

    /** The port it listens on. */
    public int port() {
        return http.getAddress().getPort();
    }

    /** Sets what {@code /ready} answers. */
    public void ready(boolean ready) {
        this.ready = ready;
    }

    private void handle(HttpExchange exchange) throws IOException {
        try (exchange) {
            String method = exchange.getRequestMethod();
            String path = exchange.getRequestURI().getPath();
            if (!method.equals("GET") && !method.equals("HEAD")) {
                respond(exchange, 405, "method not allowed: use GET\n");
            } else if (path.equals("/live")) {
                respond(exchange, 200, "live\n");
            } else if (path.equals("/ready")) {
                respond(exchange, ready ? 200 : 503, ready ? "ready\n" : "not ready\n");
            } else if (path.equals("/metrics") && metrics != null) {
                respond(exchange, 200, metrics.get(), NodeObservability.PROMETHEUS_CONTENT_TYPE);
            } else if (path.equals("/metrics")) {
                respond(exchange, 404, "not found: this node has no metrics (rpcc.metrics.enabled=false)\n");
            } else {
                respond(exchange, 404, metrics != null ? "not found: try /live, /ready or /metrics\n"
                        : "not found: try /live or /ready\n");
            }
        }
    }

    private static void respond(HttpExchange exchange, int status, String body) throws IOException {
        respond(exchange, status, body, "text/plain; charset=utf-8");
    }

    private static void respond(HttpExchange exchange, int status, String body, String contentType) throws IOException {
        byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
        exchange.getResponseHeaders().set("Content-Type", contentType);
        boolean head = exchange.getRequestMethod().equals("HEAD");
        exchange.sendResponseHeaders(status, head ? -1 : bytes.length);
        if (!head) {
            try (OutputStream out = exchange.getResponseBody()) {
                out.write(bytes);
            }
        }
    }

    /** Stops listening. */
    @Override
    public void close() {
        http.stop(0);
    }
}
