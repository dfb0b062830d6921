package io.rpcc.examples.tracing;

import brave.handler.SpanHandler;
import io.micrometer.observation.Observation;
import io.micrometer.tracing.Span;
import io.rpcc.client.ChainCall;
import io.rpcc.client.ReplySet;
import io.rpcc.client.RpccClient;
import io.rpcc.core.ChainContext;
import io.rpcc.core.ChainState;
import io.rpcc.core.ChainingFunctionSource;
import io.rpcc.core.StaticNameResolver;
import io.rpcc.core.SubChain;
import io.rpcc.examples.Options;
import io.rpcc.observability.RpccTracing;
import io.rpcc.server.RpccServer;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import zipkin2.reporter.brave.AsyncZipkinSpanHandler;
import zipkin2.reporter.urlconnection.URLConnectionSender;

/**
 * An order placed through three traced servers, reported to a Zipkin server as one trace.
 *
 * <p>The client {@value #SHOP} places an order inside an observation of its own ("place order"): the
 * chain starts at {@value #GATEWAY}, whose service function hands the reservation to a sub-chain at
 * {@value #INVENTORY} (returned to the gateway); the gateway's chaining function then splits the
 * chain into a quote at {@value #PRICING} and a stock count at {@value #INVENTORY}, merged back at
 * the gateway. The gateway, the reservation and the quote send partial replies. Every node traces
 * with {@link RpccTracing} over its own {@link BraveNodeTracing}, so Zipkin shows the node names as
 * service names.
 *
 * <p>{@code ./rpcc zipkin} starts a Zipkin server, {@code ./rpcc demo tracing [--zipkin URL]} runs
 * this and prints the trace's address in Zipkin's UI.
 */
public final class TracedOrder implements AutoCloseable {
    /** The client. */
    public static final String SHOP = "shop";
    /** The chain's first server, where the sub-chain returns and the split is merged. */
    public static final String GATEWAY = "gateway";
    /** Where the sub-chain reserves, and one branch of the split counts stock. */
    public static final String INVENTORY = "inventory";
    /** The other branch of the split. */
    public static final String PRICING = "pricing";

    /** At the gateway: after the sub-chain, split into quote and stock; after the merge, end with a summary. */
    static final ChainingFunctionSource ORDER = ChainingFunctionSource.java("""
            import io.rpcc.core.*;
            import java.util.List;
            public class PlaceOrder implements ChainingFunction {
                public NextHop apply(ChainState state, Object result) {
                    String order = state.get("order", String.class);
                    if ("split".equals(state.get("step", String.class))) {    // result: where the sub-chain reserved
                        return NextHop.split(List.of(NextHop.callThenEnd("pricing", "quote", order),
                                        NextHop.callThenEnd("inventory", "stock", order)))
                                .mergeAt("gateway", ChainingFunctionSource.SAME,
                                        state.with("step", "merge").with("reservedAt", result));
                    }
                    List<?> outcomes = (List<?>) result;                      // step "merge": quote, stock
                    return NextHop.end(order + ": reserved at " + state.get("reservedAt", String.class)
                            + ", " + ((BranchOutcome) outcomes.get(0)).value()
                            + ", " + ((BranchOutcome) outcomes.get(1)).value());
                }
            }
            """);

    /** What placing an order gave: the trace's id, the chain's result and its partial replies in arrival order. */
    public record Placed(String traceId, Object result, List<String> replies) {
    }

    private final List<BraveNodeTracing> tracings = new ArrayList<>();
    private final List<AutoCloseable> nodes = new ArrayList<>();
    private final BraveNodeTracing shopTracing;
    private final RpccClient client;

    /** Starts the three servers and the client, each traced, their spans to {@code handlers}. */
    public TracedOrder(SpanHandler... handlers) {
        StaticNameResolver names = new StaticNameResolver();
        try {
            server(names, GATEWAY, handlers, b -> b.service("order", order -> {
                ChainContext.current().preturn("order " + order + " accepted");
                return SubChain.to(INVENTORY, "reserve").params(order).composition(false);
            }));
            server(names, INVENTORY, handlers, b -> b
                    .service("reserve", order -> {
                        ChainContext.current().preturn("reserved " + order);
                        return "Lyon-2";
                    })
                    .service("stock", order -> "3 left in stock"));
            server(names, PRICING, handlers, b -> b.service("quote", order -> {
                ChainContext.current().preturn("pricing " + order);
                return "49.98 EUR";
            }));
            shopTracing = traced(SHOP, handlers);
            client = RpccTracing.of(shopTracing.registry()).applyTo(RpccClient.builder())
                    .name(SHOP).resolver(names).timeout(Duration.ofSeconds(30)).build().start();
            nodes.add(client);
        } catch (RuntimeException | Error e) {
            close();
            throw e;
        }
    }

    private BraveNodeTracing traced(String node, SpanHandler[] handlers) {
        BraveNodeTracing tracing = new BraveNodeTracing(node, handlers);
        tracings.add(tracing);
        return tracing;
    }

    private void server(StaticNameResolver names, String name, SpanHandler[] handlers,
                        java.util.function.UnaryOperator<RpccServer.Builder> services) {
        RpccTracing tracing = RpccTracing.of(traced(name, handlers).registry());
        RpccServer server = services.apply(tracing.applyTo(RpccServer.builder(name)).resolver(names)).build().start();
        nodes.add(server);
        names.register(name, server.address());
    }

    /**
     * Places order {@code order} inside the client's "place order" observation: the chain's trace is
     * that observation's. Returns once the chain's result and all its replies are in.
     */
    public Placed place(String order) {
        Observation placing = Observation.createNotStarted("shop.order", shopTracing.registry())
                .contextualName("place order").highCardinalityKeyValue("order", order);
        return placing.observe(() -> {
            Span span = Objects.requireNonNull(shopTracing.tracer().currentSpan(), "the observation's span");
            ReplySet<String> replies = client.startChainWithReplies(ChainCall.to(GATEWAY, "order").params(order)
                    .chainingFunction(ORDER).state(ChainState.of("order", order, "step", "split")), String.class);
            List<String> got = new ArrayList<>();
            replies.forEach(got::add);
            replies.awaitDone();
            return new Placed(span.context().traceId(), replies.result().join().value(), got);
        });
    }

    /** Closes the client and the servers, then their tracing. */
    @Override
    public void close() {
        for (AutoCloseable node : nodes.reversed()) {
            try {
                node.close();
            } catch (Exception e) {
                System.err.println("closing " + node + ": " + e);
            }
        }
        tracings.forEach(BraveNodeTracing::close);
    }

    /**
     * {@code ./rpcc demo tracing [--zipkin URL]}: places two orders, reports their spans to the Zipkin
     * server at URL (default {@code http://localhost:9411}, as {@code ./rpcc zipkin} starts it) and
     * prints where to see each trace. The first order's trace includes compiling the chaining function
     * at the gateway; the second finds it cached.
     */
    public static void main(String[] args) throws Exception {
        Options o = Options.parse(args, "--zipkin");
        String zipkin = o.string("--zipkin", "http://localhost:9411").replaceAll("/+$", "");
        requireZipkin(zipkin);
        List<Placed> placed = new ArrayList<>();
        try (AsyncZipkinSpanHandler zipkinReporter = AsyncZipkinSpanHandler.create(
                URLConnectionSender.create(zipkin + "/api/v2/spans"));
             TracedOrder shop = new TracedOrder(zipkinReporter)) {
            placed.add(shop.place("o-1001"));
            placed.add(shop.place("o-1002"));
            Thread.sleep(200); // the last hops' spans end just after the client has its result
            zipkinReporter.flush();
        }
        for (Placed p : placed) {
            System.out.println("result:  " + p.result());
            System.out.println("replies: " + p.replies());
            System.out.println("trace:   " + zipkin + "/zipkin/traces/" + p.traceId());
            System.out.println("         (as JSON: " + zipkin + "/api/v2/trace/" + p.traceId() + ")");
        }
    }

    /**
     * Fails with what to do if no Zipkin server answers at {@code zipkin} (a {@link Options.UsageException}:
     * {@code Main} prints its message, without a stack trace, and exits with 2).
     */
    private static void requireZipkin(String zipkin) throws InterruptedException {
        String problem;
        try (HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(3)).build()) {
            HttpResponse<String> health = http.send(HttpRequest.newBuilder(URI.create(zipkin + "/health"))
                    .timeout(Duration.ofSeconds(5)).build(), HttpResponse.BodyHandlers.ofString());
            if (health.statusCode() == 200) {
                return;
            }
            problem = "its /health answered " + health.statusCode() + ": " + health.body();
        } catch (IOException | IllegalArgumentException e) {
            problem = e.toString();
        }
        throw new Options.UsageException("no Zipkin server at " + zipkin + " (" + problem + "); start one with"
                + " ./rpcc zipkin (port 9411) in another terminal, or give its address: --zipkin http://host:port");
    }
}
