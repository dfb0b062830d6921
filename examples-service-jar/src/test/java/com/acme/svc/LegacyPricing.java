package com.acme.svc;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;

import com.sun.net.httpserver.HttpServer;
import io.rpcc.client.ChainCall;
import io.rpcc.client.RpccClient;
import io.rpcc.core.ChainResult;
import io.rpcc.core.StaticRoute;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A legacy pricing service that knows nothing of rpcc, a JDK {@code HttpServer} in the test JVM:
 * {@code POST /quotes/<id>} with an order as JSON answers a quote as JSON, and records each request's line
 * and identity headers. A node wraps it by configuration alone
 * ({@code rpcc.legacy.http.legacy-quote = POST <url>/quotes/{id} result=com.acme.svc.Quote ...}).
 */
final class LegacyPricing implements AutoCloseable {
    /** The service function name the nodes register the endpoint as. */
    static final String FUNCTION = "legacy-quote";

    record Request(String line, Map<String, String> headers, String body) {
    }

    final HttpServer server;
    final BlockingQueue<Request> requests = new LinkedBlockingQueue<>();

    private LegacyPricing(HttpServer server) {
        this.server = server;
    }

    /**
     * Starts the service on {@code bindAddress} (any free port): {@code 127.0.0.1} for nodes on this
     * machine, {@code 0.0.0.0} for node containers, which reach it through the Docker host's gateway.
     */
    static LegacyPricing start(String bindAddress) {
        HttpServer server;
        try {
            server = HttpServer.create(new InetSocketAddress(bindAddress, 0), 0);
        } catch (IOException e) {
            throw new UncheckedIOException("the legacy pricing service could not listen on " + bindAddress, e);
        }
        LegacyPricing p = new LegacyPricing(server);
        server.createContext("/quotes/", exchange -> {
            String body = new String(exchange.getRequestBody().readAllBytes(), StandardCharsets.UTF_8);
            Map<String, String> headers = new HashMap<>();
            for (String h : List.of("authorization", "x-rpcc-originator", "x-rpcc-originator-verified", "x-rpcc-chain")) {
                String v = exchange.getRequestHeaders().getFirst(h);
                if (v != null) {
                    headers.put(h, v);
                }
            }
            String id = exchange.getRequestURI().getPath().substring("/quotes/".length());
            p.requests.add(new Request(exchange.getRequestMethod() + " " + exchange.getRequestURI().getPath(), headers, body));
            // the order's lines, as the JSON the node sent: "quantity":3 ... "unitCents":150
            long total = 0;
            Matcher m = Pattern.compile("\"quantity\":(\\d+),\"unitCents\":(\\d+)").matcher(body);
            while (m.find()) {
                total += Long.parseLong(m.group(1)) * Long.parseLong(m.group(2));
            }
            byte[] answer = ("{\"orderId\":\"" + id + "\",\"totalCents\":" + total + ",\"pricedAt\":\"legacy-pricing\","
                    + "\"currency\":\"EUR\"}").getBytes(StandardCharsets.UTF_8);
            exchange.getResponseHeaders().add("content-type", "application/json");
            exchange.sendResponseHeaders(200, answer.length);
            exchange.getResponseBody().write(answer);
            exchange.close();
        });
        server.start();
        return p;
    }

    /** The service's port. */
    int port() {
        return server.getAddress().getPort();
    }

    /** {@code http://<host>:<port>}: where a node reaches the service by {@code host}. */
    String url(String host) {
        return "http://" + host + ":" + port();
    }

    /**
     * The chain {@code order} at {@code orderNode}, then {@link #FUNCTION} at {@code wrapperNode}, which registered
     * it from its configuration alone: the wrapper POSTs the order as JSON to this service and reads its JSON
     * answer as the jar's Quote. The service sees the originator (the client's name) and the wrapper's configured
     * {@code token}; a chain that carries a credential of its own passes that one on instead.
     */
    void checkAWrappedCallSeesTheOriginatorsIdentity(RpccClient client, String orderNode, String wrapperNode, String token) {
        StaticRoute route = StaticRoute.of(StaticRoute.hop(orderNode, "order"), StaticRoute.hop(wrapperNode, FUNCTION));
        ChainResult r = client.runChain(ChainCall.along(route, "L-5"));
        assertEquals(new Quote("L-5", 3 * 150 + 2 * 900, "legacy-pricing"), r.value());
        assertEquals(List.of(orderNode, wrapperNode), r.path());
        Request seen = requests.poll();
        assertNotNull(seen, "the HTTP service was called");
        assertEquals("POST /quotes/L-5", seen.line());
        assertEquals("Bearer " + token, seen.headers().get("authorization"), "the wrapper's configured token");
        assertEquals(client.name(), seen.headers().get("x-rpcc-originator"));
        assertEquals("false", seen.headers().get("x-rpcc-originator-verified"), "plaintext nodes verify no originator");

        client.runChain(ChainCall.along(route, "L-6").metadata("authorization", "Bearer ada-s-own"));
        seen = requests.poll();
        assertNotNull(seen, "the HTTP service was called again");
        assertEquals("Bearer ada-s-own", seen.headers().get("authorization"), "the chain's own credential wins");
        assertEquals(client.name(), seen.headers().get("x-rpcc-originator"));
    }

    @Override
    public void close() {
        server.stop(0);
    }
}
