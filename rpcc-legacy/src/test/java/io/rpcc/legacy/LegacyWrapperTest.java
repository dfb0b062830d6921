package io.rpcc.legacy;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.google.protobuf.Struct;
import com.google.protobuf.Value;
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
import io.rpcc.core.ChainErrorCode;
import io.rpcc.core.ChainException;
import io.rpcc.core.ChainResult;
import io.rpcc.core.ServiceFunctionException;
import io.rpcc.core.StaticNameResolver;
import io.rpcc.core.StaticRoute;
import io.rpcc.core.TypeRegistry;
import io.rpcc.core.runtime.NodeBuilder;
import io.rpcc.core.testing.TestPki;
import io.rpcc.server.RpccServer;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.function.UnaryOperator;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.json.JsonMapper;

/**
 * A chain through a real gRPC server and a real HTTP/JSON server, each wrapped as service functions
 * by an rpcc node beside it, all on loopback sockets: results, the identity each legacy service
 * sees, and the errors the originator gets when a legacy service fails or is down.
 */
class LegacyWrapperTest {
    record Order(String sku, int quantity) {
    }

    record Reservation(String id, String sku, int quantity, String warehouse) {
    }

    record Quote(String sku, int quantity, String reservation, double total) {
    }

    static final double PRICE = 2.5;
    static final StaticRoute ORDER_ROUTE = StaticRoute.of(StaticRoute.hop("inventory", "reserve"),
            StaticRoute.hop("pricing", "quote"));
    static final JsonMapper JSON = JsonMapper.builder().build();

    final List<Map<String, String>> grpcSaw = new CopyOnWriteArrayList<>();
    final List<Map<String, String>> httpSaw = new CopyOnWriteArrayList<>();
    final StaticNameResolver names = new StaticNameResolver();
    final TypeRegistry types = LegacyGrpc.registerTypes(TypeRegistry.builder().register(Order.class)
            .register(Reservation.class).register(Quote.class), InventoryGrpc.getServiceDescriptor()).build();

    /** The deadline the last Stock call arrived with. */
    volatile io.grpc.Deadline stockDeadline;
    Server grpc;
    int grpcPort;
    ManagedChannel channel;
    HttpServer http;
    int httpPort;
    LegacyGrpc.Builder inventoryWrapper;
    RpccServer inventory;
    RpccServer pricing;
    RpccClient client;

    @BeforeEach
    void start() throws IOException {
        grpc = startGrpc(0);
        grpcPort = grpc.getPort();
        channel = ManagedChannelBuilder.forAddress("127.0.0.1", grpcPort).usePlaintext().build();
        http = startHttp(0);
        httpPort = http.getAddress().getPort();

        inventoryWrapper = LegacyGrpc.wrap(InventoryGrpc.getServiceDescriptor(), channel)
                .alias("shop.Inventory/Reserve", "reserve")
                .adapt(InventoryGrpc.RESERVE, params -> {
                    Order o = (Order) params;
                    return Struct.newBuilder().putFields("sku", text(o.sku())).putFields("quantity", number(o.quantity())).build();
                }, r -> new Reservation(r.getFieldsOrThrow("reservation").getStringValue(), r.getFieldsOrThrow("sku").getStringValue(),
                        (int) r.getFieldsOrThrow("quantity").getNumberValue(), r.getFieldsOrThrow("warehouse").getStringValue()))
                .identity(LegacyIdentity.fromChain().orToken("inventory-token"));
        inventory = inventoryWrapper.registerOn(secure(RpccServer.builder("inventory").resolver(names).types(types), "inventory"))
                .build().start();
        pricing = LegacyHttp.endpoint("POST", "http://127.0.0.1:" + httpPort + "/quotes/{sku}")
                .result(Quote.class)
                .identity(LegacyIdentity.fromChain().orToken("pricing-token"))
                .registerOn(LegacyHttp.endpoint("GET", "http://127.0.0.1:" + httpPort + "/slow/{sku}")
                        .timeout(Duration.ofMillis(300))
                        .registerOn(secure(RpccServer.builder("pricing").resolver(names).types(types), "pricing"), "slow"),
                        "quote")
                .build().start();
        names.register("inventory", inventory.address());
        names.register("pricing", pricing.address());
        client = secure(RpccClient.builder().name("alice").resolver(names).types(types), "alice").build().start();
    }

    /** Whether every node runs mutual TLS, which proves the originator to each hop; here, plaintext. */
    boolean tls() {
        return false;
    }

    private <B extends NodeBuilder<B>> B secure(B builder, String name) {
        return tls() ? builder.tls(TestPki.shared().node(name)) : builder;
    }

    @AfterEach
    void stop() throws InterruptedException {
        for (AutoCloseable c : new AutoCloseable[] {client, inventory, pricing}) {
            try {
                if (c != null) {
                    c.close();
                }
            } catch (Exception e) {
                // closing the rest matters more
            }
        }
        channel.shutdownNow().awaitTermination(5, TimeUnit.SECONDS);
        grpc.shutdownNow().awaitTermination(5, TimeUnit.SECONDS);
        http.stop(0);
    }

    /** The legacy inventory: reserves stock (or refuses, for sku "none"), and tells the stock of a sku. */
    Server startGrpc(int port) throws IOException {
        ServerInterceptor recordIdentity = new ServerInterceptor() {
            @Override
            public <Q, R> ServerCall.Listener<Q> interceptCall(ServerCall<Q, R> call, io.grpc.Metadata headers,
                                                              ServerCallHandler<Q, R> next) {
                grpcSaw.add(identity(k -> headers.get(io.grpc.Metadata.Key.of(k, io.grpc.Metadata.ASCII_STRING_MARSHALLER))));
                return next.startCall(call, headers);
            }
        };
        return ServerBuilder.forPort(port).addService(ServerInterceptors.intercept(InventoryGrpc.bindService(
                (request, response) -> {
                    String sku = request.getFieldsOrThrow("sku").getStringValue();
                    if (sku.equals("none")) {
                        response.onError(Status.FAILED_PRECONDITION.withDescription("out of stock: " + sku).asRuntimeException());
                        return;
                    }
                    double quantity = request.getFieldsOrThrow("quantity").getNumberValue();
                    response.onNext(Struct.newBuilder().putFields("reservation", text("R-" + sku + "-" + (int) quantity))
                            .putFields("sku", text(sku)).putFields("quantity", number(quantity))
                            .putFields("warehouse", text("north")).build());
                    response.onCompleted();
                },
                (sku, response) -> {
                    stockDeadline = io.grpc.Context.current().getDeadline();
                    if (sku.getStringValue().equals("huge")) { // more than the channel's 4 MiB default lets in
                        response.onNext(text("x".repeat(5 << 20)));
                        response.onCompleted();
                        return;
                    }
                    response.onNext(number(sku.getStringValue().length() * 10));
                    response.onCompleted();
                }), recordIdentity)).build().start();
    }

    /** The legacy pricing service: POST /quotes/{sku} with a reservation, a quote back (500 for sku "broken"). */
    HttpServer startHttp(int port) throws IOException {
        HttpServer server = HttpServer.create(new InetSocketAddress("127.0.0.1", port), 0);
        server.createContext("/quotes/", exchange -> {
            httpSaw.add(identity(k -> exchange.getRequestHeaders().getFirst(k)));
            String sku = URLDecoder.decode(exchange.getRequestURI().getRawPath().substring("/quotes/".length()),
                    StandardCharsets.UTF_8);
            Map<?, ?> reservation = JSON.readValue(exchange.getRequestBody().readAllBytes(), Map.class);
            if (sku.equals("broken")) {
                respond(exchange, 500, "{\"error\":\"database on fire\"}");
                return;
            }
            int quantity = ((Number) reservation.get("quantity")).intValue();
            respond(exchange, 200, JSON.writeValueAsString(Map.of("sku", sku, "quantity", quantity,
                    "reservation", reservation.get("id"), "total", quantity * PRICE, "currency", "EUR")));
        });
        server.createContext("/slow/", exchange -> {
            try {
                Thread.sleep(2_000);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            respond(exchange, 200, "{}");
        });
        server.setExecutor(Executors.newVirtualThreadPerTaskExecutor());
        server.start();
        return server;
    }

    static void respond(HttpExchange exchange, int status, String json) throws IOException {
        byte[] body = json.getBytes(StandardCharsets.UTF_8);
        exchange.getResponseHeaders().set("content-type", "application/json");
        exchange.sendResponseHeaders(status, body.length);
        try (OutputStream out = exchange.getResponseBody()) {
            out.write(body);
        }
    }

    static Map<String, String> identity(UnaryOperator<String> header) {
        Map<String, String> seen = new TreeMap<>();
        for (String k : List.of(LegacyIdentity.AUTHORIZATION, LegacyIdentity.ORIGINATOR,
                LegacyIdentity.ORIGINATOR_VERIFIED, LegacyIdentity.CHAIN)) {
            String v = header.apply(k);
            if (v != null) {
                seen.put(k, v);
            }
        }
        return seen;
    }

    static Value text(String s) {
        return Value.newBuilder().setStringValue(s).build();
    }

    static Value number(double d) {
        return Value.newBuilder().setNumberValue(d).build();
    }

    /** What a legacy service saw: the originator's credential and name, verified between TLS nodes. */
    void assertSaw(Map<String, String> seen, String authorization) {
        assertEquals(authorization, seen.get(LegacyIdentity.AUTHORIZATION), seen::toString);
        assertEquals("alice", seen.get(LegacyIdentity.ORIGINATOR), seen::toString);
        assertEquals(Boolean.toString(tls()), seen.get(LegacyIdentity.ORIGINATOR_VERIFIED), seen::toString);
        assertTrue(seen.getOrDefault(LegacyIdentity.CHAIN, "").startsWith("alice"), seen::toString);
    }

    @Test
    void aChainCallsThroughARealGrpcServerAndARealHttpServerWithTheOriginatorsIdentity() {
        ChainResult r = client.runChain(ChainCall.along(ORDER_ROUTE, new Order("apple", 3))
                .metadata("authorization", "alice-token"));
        assertEquals(new Quote("apple", 3, "R-apple-3", 7.5), r.value());
        assertEquals(List.of("inventory", "pricing"), r.path());
        assertEquals(1, grpcSaw.size());
        assertEquals(1, httpSaw.size());
        assertSaw(grpcSaw.get(0), "Bearer alice-token");
        assertSaw(httpSaw.get(0), "Bearer alice-token");
        assertEquals(grpcSaw.get(0).get(LegacyIdentity.CHAIN), httpSaw.get(0).get(LegacyIdentity.CHAIN), "one chain");
    }

    @Test
    void withoutACredentialInTheChainTheWrapperSendsItsTokenAndStillNamesTheOriginator() {
        client.runChain(ChainCall.along(ORDER_ROUTE, new Order("pear", 1)));
        assertSaw(grpcSaw.get(0), "Bearer inventory-token");
        assertSaw(httpSaw.get(0), "Bearer pricing-token");
    }

    @Test
    void protobufMessagesTravelInTheChainAsThemselvesAndTheCallCarriesTheChainsDeadline() {
        Object stock = client.runChain(ChainCall.to("inventory", "shop.Inventory/Stock").params(text("apple"))
                .metadata("authorization", "Token t-1").deadline(Duration.ofSeconds(30))).value();
        assertEquals(number(50), stock);
        long left = stockDeadline.timeRemaining(TimeUnit.MILLISECONDS);
        assertTrue(left > 0 && left <= 30_000, () -> "the gRPC call carried the chain's deadline: " + stockDeadline);
        assertSaw(grpcSaw.get(0), "Token t-1");
        assertEquals(List.of("shop.Inventory/Watch"), inventoryWrapper.skipped());
        ChainException streaming = assertThrows(ChainException.class,
                () -> client.runChain(ChainCall.to("inventory", "shop.Inventory/Watch").params(text("apple"))));
        assertEquals(ChainErrorCode.UNKNOWN_SERVICE_FUNCTION, streaming.code());
    }

    @Test
    void aGrpcStatusReachesTheOriginatorAsATypedErrorNamingTheHopAndTheMethod() {
        ServiceFunctionException e = assertThrows(ServiceFunctionException.class,
                () -> client.runChain(ChainCall.along(ORDER_ROUTE, new Order("none", 1))));
        assertEquals(ChainErrorCode.SERVICE_FUNCTION_FAILED, e.code());
        assertEquals(LegacyCallException.class.getName(), e.exceptionName());
        assertEquals("inventory", e.host());
        assertEquals(1, e.hop());
        assertTrue(e.remoteMessage().contains("legacy gRPC method shop.Inventory/Reserve failed with status"
                + " FAILED_PRECONDITION: out of stock: none (service function 'reserve', hop 1, node 'inventory')"),
                e.remoteMessage());
        assertEquals(new Quote("apple", 1, "R-apple-1", 2.5), client.runChain(ChainCall.along(ORDER_ROUTE,
                new Order("apple", 1))).value(), "the wrapper keeps serving");
    }

    @Test
    void aGrpcResponseLargerThanTheChannelLetsInIsATypedErrorSayingWhatToDo() {
        ServiceFunctionException e = assertThrows(ServiceFunctionException.class,
                () -> client.runChain(ChainCall.to("inventory", "shop.Inventory/Stock").params(text("huge"))));
        assertEquals(LegacyCallException.class.getName(), e.exceptionName());
        assertTrue(e.remoteMessage().contains("legacy gRPC method shop.Inventory/Stock failed with status"
                + " RESOURCE_EXHAUSTED: gRPC message exceeds maximum size 4194304"), e.remoteMessage());
        assertTrue(e.remoteMessage().contains("build the channel with a larger maxInboundMessageSize"), e.remoteMessage());
        assertEquals(number(50), client.runChain(ChainCall.to("inventory", "shop.Inventory/Stock")
                .params(text("apple"))).value(), "the wrapper keeps serving");
    }

    @Test
    void anHttpErrorReachesTheOriginatorAsATypedErrorWithTheStatusAndBody() {
        ServiceFunctionException e = assertThrows(ServiceFunctionException.class,
                () -> client.runChain(ChainCall.along(ORDER_ROUTE, new Order("broken", 2))));
        assertEquals(LegacyCallException.class.getName(), e.exceptionName());
        assertEquals("pricing", e.host());
        assertEquals(2, e.hop());
        assertTrue(e.remoteMessage().contains("legacy HTTP endpoint POST http://127.0.0.1:" + httpPort
                + "/quotes/broken failed with status 500: response body: {\"error\":\"database on fire\"}"
                + " (service function 'quote', hop 2, node 'pricing')"), e.remoteMessage());
        assertEquals(new Quote("fig", 2, "R-fig-2", 5.0), client.runChain(ChainCall.along(ORDER_ROUTE,
                new Order("fig", 2))).value(), "the wrapper keeps serving");
    }

    @Test
    void aLegacyCallLongerThanTheWrappersTimeoutIsATypedError() {
        ServiceFunctionException e = assertThrows(ServiceFunctionException.class,
                () -> client.runChain(ChainCall.to("pricing", "slow").params("tea")));
        assertEquals(LegacyCallException.class.getName(), e.exceptionName());
        assertTrue(e.remoteMessage().contains("legacy HTTP endpoint GET http://127.0.0.1:" + httpPort
                + "/slow/tea failed with status TIMEOUT: no response before the chain's deadline or the wrapper's"
                + " timeout (PT0.3S) (service function 'slow', hop 1, node 'pricing')"), e.remoteMessage());
    }

    @Test
    void aLegacyServerThatIsDownIsATypedErrorAndTheWrapperServesAgainWhenItIsBack() throws Exception {
        grpc.shutdownNow().awaitTermination(5, TimeUnit.SECONDS);
        ServiceFunctionException down = assertThrows(ServiceFunctionException.class,
                () -> client.runChain(ChainCall.along(ORDER_ROUTE, new Order("apple", 1))));
        assertEquals("inventory", down.host());
        assertTrue(down.remoteMessage().contains("legacy gRPC method shop.Inventory/Reserve failed with status UNAVAILABLE"),
                down.remoteMessage());
        assertTrue(down.remoteMessage().contains("is down or unreachable from this node"), down.remoteMessage());

        http.stop(0);
        ServiceFunctionException httpDown = assertThrows(ServiceFunctionException.class, () -> client.runChain(
                ChainCall.to("pricing", "quote").params(new Reservation("R-1", "apple", 1, "north"))));
        assertEquals("pricing", httpDown.host());
        assertTrue(httpDown.remoteMessage().contains("legacy HTTP endpoint POST http://127.0.0.1:" + httpPort
                + "/quotes/apple failed with status UNREACHABLE"), httpDown.remoteMessage());

        grpc = startGrpc(grpcPort);
        http = startHttp(httpPort);
        channel.resetConnectBackoff();
        Object quote = null;
        for (int attempt = 0; quote == null; attempt++) { // the channel reconnects on its own time
            try {
                quote = client.runChain(ChainCall.along(ORDER_ROUTE, new Order("kiwi", 4))).value();
            } catch (ServiceFunctionException stillDown) {
                if (attempt == 50) {
                    throw stillDown;
                }
                Thread.sleep(100);
            }
        }
        assertEquals(new Quote("kiwi", 4, "R-kiwi-4", 10.0), quote);
    }
}
