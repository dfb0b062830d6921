package io.rpcc.examples.legacy;

import com.google.protobuf.Struct;
import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import io.grpc.ManagedChannel;
import io.grpc.ManagedChannelBuilder;
import io.grpc.Server;
import io.grpc.ServerBuilder;
import io.grpc.ServerCall;
import io.grpc.ServerCallHandler;
import io.grpc.ServerInterceptor;
import io.grpc.ServerInterceptors;
import io.grpc.Status;
import io.rpcc.client.ChainCall;
import io.rpcc.client.RpccClient;
import io.rpcc.core.ChainException;
import io.rpcc.core.ChainResult;
import io.rpcc.core.StaticRoute;
import io.rpcc.core.TypeRegistry;
import io.rpcc.examples.Options;
import io.rpcc.legacy.LegacyGrpc;
import io.rpcc.legacy.LegacyHttp;
import io.rpcc.legacy.LegacyIdentity;
import io.rpcc.testkit.WanCluster;
import io.rpcc.testkit.WanTopology;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import tools.jackson.databind.json.JsonMapper;

/**
 * Legacy services in a chain on the emulated WAN (paper section 3.5, figure 7's sites). The
 * inventory is a real gRPC server in Mountain View and the pricing service a real HTTP/JSON server
 * in Redmond; neither knows rpcc. An rpcc node beside each wraps it: {@code inventory} registers
 * {@code shop.Inventory/Reserve} (aliased {@code reserve}) with {@link LegacyGrpc}, {@code pricing}
 * registers {@code POST /quotes/{sku}} as {@code quote} with {@link LegacyHttp}. A client in
 * Cambridge sends an order along {@code inventory → pricing}, and the quote comes straight back to
 * it; then the same two calls as plain RPCs, each back to the client. Each legacy service prints the
 * identity it saw: the client's credential and name, passed on by the wrappers.
 *
 * <p>{@code ./rpcc demo legacy [--runs N]}.
 */
public final class LegacyGeo {
    /** An order: what the client sends. */
    public record Order(String sku, int quantity) {
    }

    /** The inventory's answer, as the chain carries it (the wrapper adapts the gRPC messages). */
    public record Reservation(String id, String sku, int quantity, String warehouse) {
    }

    /** The pricing service's JSON answer. */
    public record Quote(String sku, int quantity, String reservation, double total) {
    }

    static final StaticRoute ROUTE = StaticRoute.of(StaticRoute.hop("inventory", "reserve"),
            StaticRoute.hop("pricing", "quote"));
    private static final JsonMapper JSON = JsonMapper.builder().build();
    private static final double PRICE = 12.5;

    private final List<String> grpcSaw = Collections.synchronizedList(new ArrayList<>());
    private final List<String> httpSaw = Collections.synchronizedList(new ArrayList<>());

    private LegacyGeo() {
    }

    public static void main(String[] args) throws Exception {
        Options o = Options.parse(args, "--runs");
        new LegacyGeo().run(o.integer("--runs", 5));
    }

    private void run(int runs) throws Exception {
        WanTopology t = WanTopology.paperFigure7();
        TypeRegistry types = LegacyGrpc.registerTypes(TypeRegistry.builder().register(Order.class)
                .register(Reservation.class).register(Quote.class), Inventory.getServiceDescriptor()).build();
        Server grpc = startInventory();
        HttpServer http = startPricing();
        ManagedChannel channel = ManagedChannelBuilder.forAddress("127.0.0.1", grpc.getPort()).usePlaintext().build();
        try (WanCluster wan = WanCluster.of(t, types)) {
            wan.server("inventory", WanTopology.MOUNTAIN_VIEW, b -> LegacyGrpc.wrap(Inventory.getServiceDescriptor(), channel)
                    .alias(Inventory.RESERVE.getFullMethodName(), "reserve")
                    .adapt(Inventory.RESERVE, params -> {
                        Order order = (Order) params;
                        return Struct.newBuilder().putFields("sku", Inventory.text(order.sku()))
                                .putFields("quantity", Inventory.number(order.quantity())).build();
                    }, r -> new Reservation(r.getFieldsOrThrow("reservation").getStringValue(),
                            r.getFieldsOrThrow("sku").getStringValue(), (int) r.getFieldsOrThrow("quantity").getNumberValue(),
                            r.getFieldsOrThrow("warehouse").getStringValue()))
                    .identity(LegacyIdentity.fromChain().orToken("inventory-node-token"))
                    .registerOn(b));
            wan.server("pricing", WanTopology.REDMOND, b -> LegacyHttp.endpoint("POST",
                            "http://127.0.0.1:" + http.getAddress().getPort() + "/quotes/{sku}")
                    .result(Quote.class)
                    .identity(LegacyIdentity.fromChain().orToken("pricing-node-token"))
                    .registerOn(b, "quote"));
            RpccClient client = wan.client("alice", WanTopology.CAMBRIDGE,
                    c -> c.interceptor(call -> call.metadata("authorization", "alice-token")));

            System.out.println("Legacy services in a chain (paper 3.5), on figure 7's emulated WAN:");
            System.out.println("  gRPC shop.Inventory/Reserve in Mountain View, wrapped by node 'inventory' beside it");
            System.out.println("  HTTP POST /quotes/{sku} in Redmond, wrapped by node 'pricing' beside it");
            System.out.println("  client 'alice' in Cambridge, with credential 'alice-token' in its chains' metadata");
            System.out.println();

            Order order = new Order("KB-42", 2);
            ChainResult chained = client.runChain(ChainCall.along(ROUTE, order));
            System.out.println("chain:   alice → " + String.join(" → ", chained.path()) + " → alice");
            System.out.println("result:  " + chained.value());
            System.out.println("the gRPC inventory saw:  " + grpcSaw.get(grpcSaw.size() - 1));
            System.out.println("the HTTP pricing saw:    " + httpSaw.get(httpSaw.size() - 1));
            System.out.println();

            wan.emulator().setDelaying(false); // warm up without the links' delays: the JIT compiles the paths
            for (int i = 0; i < 50; i++) {
                client.runChain(ChainCall.along(ROUTE, order));
                client.runChain(ChainCall.to("pricing", "quote").params(
                        client.runChain(ChainCall.to("inventory", "reserve").params(order)).value()));
            }
            wan.emulator().setDelaying(true);
            List<Double> chainMs = new ArrayList<>();
            List<Double> rpcMs = new ArrayList<>();
            for (int i = 0; i < runs + 1; i++) { // the first of each crosses the links once more, unmeasured
                long start = System.nanoTime();
                client.runChain(ChainCall.along(ROUTE, order));
                long chainEnd = System.nanoTime();
                Reservation r = client.runChain(ChainCall.to("inventory", "reserve").params(order)).value(Reservation.class);
                client.runChain(ChainCall.to("pricing", "quote").params(r));
                long rpcEnd = System.nanoTime();
                if (i > 0) {
                    chainMs.add((chainEnd - start) / 1e6);
                    rpcMs.add((rpcEnd - chainEnd) / 1e6);
                }
            }
            double ideal = oneWayMs(t, WanTopology.CAMBRIDGE, WanTopology.MOUNTAIN_VIEW)
                    + oneWayMs(t, WanTopology.MOUNTAIN_VIEW, WanTopology.REDMOND)
                    + oneWayMs(t, WanTopology.REDMOND, WanTopology.CAMBRIDGE);
            double idealRpc = 2 * oneWayMs(t, WanTopology.CAMBRIDGE, WanTopology.MOUNTAIN_VIEW)
                    + 2 * oneWayMs(t, WanTopology.CAMBRIDGE, WanTopology.REDMOND);
            System.out.printf(Locale.ROOT, "median of %d runs:  chain %.0f ms (links alone: %.0f ms)   two RPCs %.0f ms"
                    + " (links alone: %.0f ms)%n", runs, median(chainMs), ideal, median(rpcMs), idealRpc);
            System.out.println();

            try {
                client.runChain(ChainCall.along(ROUTE, new Order("none", 1)));
            } catch (ChainException e) {
                System.out.println("an order the inventory refuses (gRPC FAILED_PRECONDITION) reaches alice as "
                        + e.code() + " from hop " + e.hop() + " on '" + e.host() + "':");
                System.out.println("  " + e.exceptionName() + ": " + e.remoteMessage());
            }
        } finally {
            channel.shutdownNow().awaitTermination(5, TimeUnit.SECONDS);
            grpc.shutdownNow().awaitTermination(5, TimeUnit.SECONDS);
            http.stop(0);
        }
    }

    private static double oneWayMs(WanTopology t, String from, String to) {
        return t.link(from, to).latency().toNanos() / 1e6;
    }

    private static double median(List<Double> values) {
        List<Double> sorted = new ArrayList<>(values);
        Collections.sort(sorted);
        return sorted.isEmpty() ? Double.NaN : sorted.get(sorted.size() / 2);
    }

    /** The legacy inventory: a plain gRPC server, which records the identity headers of each call. */
    private Server startInventory() throws IOException {
        ServerInterceptor recordIdentity = new ServerInterceptor() {
            @Override
            public <Q, R> ServerCall.Listener<Q> interceptCall(ServerCall<Q, R> call, io.grpc.Metadata headers,
                                                              ServerCallHandler<Q, R> next) {
                grpcSaw.add(seen(k -> headers.get(io.grpc.Metadata.Key.of(k, io.grpc.Metadata.ASCII_STRING_MARSHALLER))));
                return next.startCall(call, headers);
            }
        };
        return ServerBuilder.forPort(0).addService(ServerInterceptors.intercept(Inventory.bindService((request, response) -> {
            String sku = request.getFieldsOrThrow("sku").getStringValue();
            if (sku.equals("none")) {
                response.onError(Status.FAILED_PRECONDITION.withDescription("no stock of " + sku).asRuntimeException());
                return;
            }
            double quantity = request.getFieldsOrThrow("quantity").getNumberValue();
            response.onNext(Struct.newBuilder().putFields("reservation", Inventory.text("R-" + sku + "-" + (int) quantity))
                    .putFields("sku", Inventory.text(sku)).putFields("quantity", Inventory.number(quantity))
                    .putFields("warehouse", Inventory.text("Fremont")).build());
            response.onCompleted();
        }), recordIdentity)).build().start();
    }

    /** The legacy pricing service: a plain JDK HTTP server, POST /quotes/{sku} with a reservation in JSON. */
    private HttpServer startPricing() throws IOException {
        HttpServer server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
        server.createContext("/quotes/", exchange -> {
            httpSaw.add(seen(k -> exchange.getRequestHeaders().getFirst(k)));
            String sku = URLDecoder.decode(exchange.getRequestURI().getRawPath().substring("/quotes/".length()),
                    StandardCharsets.UTF_8);
            Map<?, ?> reservation = JSON.readValue(exchange.getRequestBody().readAllBytes(), Map.class);
            int quantity = ((Number) reservation.get("quantity")).intValue();
            respond(exchange, JSON.writeValueAsString(Map.of("sku", sku, "quantity", quantity,
                    "reservation", reservation.get("id"), "total", quantity * PRICE)));
        });
        server.start();
        return server;
    }

    private static void respond(HttpExchange exchange, String json) throws IOException {
        byte[] body = json.getBytes(StandardCharsets.UTF_8);
        exchange.getResponseHeaders().set("content-type", "application/json");
        exchange.sendResponseHeaders(200, body.length);
        try (OutputStream out = exchange.getResponseBody()) {
            out.write(body);
        }
    }

    private static String seen(java.util.function.UnaryOperator<String> header) {
        return LegacyIdentity.AUTHORIZATION + "=" + header.apply(LegacyIdentity.AUTHORIZATION) + ", "
                + LegacyIdentity.ORIGINATOR + "=" + header.apply(LegacyIdentity.ORIGINATOR) + ", "
                + LegacyIdentity.ORIGINATOR_VERIFIED + "=" + header.apply(LegacyIdentity.ORIGINATOR_VERIFIED);
    }
}
