package io.rpcc.node.internal;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;

/**
 * The node's health endpoint, on the JDK's HTTP server: {@code GET /live} answers 200 while the
 * process runs; {@code GET /ready} answers 200 once the node listens and 503 while it starts or
 * drains. Anything else is 404, methods other than GET and HEAD 405.
 */
public final class HealthEndpoint implements AutoCloseable {
    private final HttpServer http;
    private volatile boolean ready;

    private HealthEndpoint(HttpServer http) {
        this.http = http;
    }

    /** Starts the endpoint on {@code host:port}, not ready yet. */
    public static HealthEndpoint start(String host, int port) throws IOException {
        HttpServer http = HttpServer.create(new InetSocketAddress(host, port), 16);
        HealthEndpoint endpoint = new HealthEndpoint(http);
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
            } else {
                respond(exchange, 404, "not found: try /live or /ready\n");
            }
        }
    }

    private static void respond(HttpExchange exchange, int status, String body) throws IOException {
        byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
        exchange.getResponseHeaders().set("Content-Type", "text/plain; charset=utf-8");
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
