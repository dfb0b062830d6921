package io.rpcc.examples.sequential;

import io.rpcc.client.ChainCall;
import io.rpcc.client.RpccClient;
import io.rpcc.core.ChainContext;
import io.rpcc.core.ChainResult;
import io.rpcc.core.ChainState;
import io.rpcc.core.ChainingFunction;
import io.rpcc.core.ChainingFunctionSource;
import io.rpcc.core.NextHop;
import io.rpcc.core.TypeRegistry;
import io.rpcc.core.internal.wire.Serialization;
import io.rpcc.examples.Charts;
import io.rpcc.examples.Measurement;
import io.rpcc.examples.Options;
import io.rpcc.examples.Results;
import io.rpcc.examples.Timing;
import io.rpcc.examples.quickstart.Gateway;
import io.rpcc.examples.quickstart.Inventory;
import io.rpcc.examples.quickstart.Order;
import io.rpcc.examples.quickstart.Pricing;
import io.rpcc.examples.quickstart.Quickstart;
import io.rpcc.examples.quickstart.Quote;
import io.rpcc.examples.quickstart.SequentialCheckout;
import io.rpcc.server.ServerInterceptor;
import io.rpcc.testkit.WanCluster;
import io.rpcc.testkit.WanTopology;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.jspecify.annotations.Nullable;

/**
 * The quickstart's checkout (gateway.region → inventory-(region).reserve → pricing.quote) on the
 * paper's WAN topology (figure 7), written two ways: the continuation-style chaining function
 * {@code chains/Checkout.java} and the sequential chain {@link SequentialCheckout}, replayed at each
 * hop. Both take the same path; the runner measures them alternately and prints their median
 * latencies (the sequential one must be within 2 % of the other) and the chain state each hop
 * carries, in bytes as the wire encodes it. The client is in Cambridge, the gateway, inventory-us
 * and pricing in Mountain View, inventory-eu in Redmond; an order for France takes the eu route
 * (param 1), one for the US the us route (param 2). Writes the chart {@code sequential-vs-continuation.png}.
 *
 * <pre>
 * java -jar examples/target/rpcc-examples.jar sequential [--json] [--runs 15] [--charts DIR]
 * </pre>
 */
public final class SequentialVsContinuation {
    static final String SCENARIO = "sequential";
    private static final TypeRegistry TYPES = TypeRegistry.of(Order.class, Quote.class);

    private SequentialVsContinuation() {
    }

    public static void main(String[] args) throws Exception {
        Options o = Options.parse(args, "--runs");
        WanTopology t = WanTopology.paperFigure7();
        Map<String, List<Integer>> stateBytes = new ConcurrentHashMap<>();
        Map<String, Double> chainingUs = new ConcurrentHashMap<>();
        Results results = run(t, o.integer("--runs", 15), o, stateBytes, chainingUs);
        Path chart = Charts.line(o.charts(), "sequential-vs-continuation",
                "Checkout: continuation-style vs sequential chain", "route (1 = eu, 2 = us)", "latency (ms)",
                results.lines(), Measurement::label, Measurement::param, Measurement::medianMs);
        results.print(o, chart, () -> {
            System.out.println("Checkout as a continuation-style chaining function and as a sequential chain: client in"
                    + " Cambridge, gateway, inventory-us and pricing in Mountain View, inventory-eu in Redmond");
            System.out.printf(Locale.ROOT, "  %-6s %16s %14s %9s %9s %9s %16s%n", "route", "continuation ms", "sequential ms",
                    "seq/cont", "ideal", "within 2%", "chaining µs c/s");
            for (int route = 1; route <= 2; route++) {
                Measurement c = results.measured("continuation", route, null);
                Measurement s = results.measured("sequential", route, null);
                double ratio = s.medianMs() / c.medianMs();
                System.out.printf(Locale.ROOT, "  %-6s %16.1f %14.1f %+8.1f%% %9.1f %9s %8.0f/%.0f%n", route == 1 ? "eu" : "us",
                        c.medianMs(), s.medianMs(), 100 * (ratio - 1), results.ideal("continuation", route, null).medianMs(),
                        Math.abs(ratio - 1) <= 0.02 ? "yes" : "NO", chainingUs.getOrDefault("continuation " + route, 0.0),
                        chainingUs.getOrDefault("sequential " + route, 0.0));
            }
            System.out.println("(chaining µs: the chain's chaining functions at its servers, median per chain: "
                    + "continuation/sequential)");
            System.out.println("chain state carried by each hop (bytes as encoded on the wire; eu route):");
            for (String variant : List.of("continuation", "sequential")) {
                System.out.printf(Locale.ROOT, "  %-13s %s%n", variant, stateBytes.getOrDefault(variant, List.of()));
            }
        });
    }

    /**
     * Measures both variants on both routes, alternately, after warming both up; fills
     * {@code stateBytes} with each variant's state bytes per hop on the eu route, and
     * {@code chainingUs} with the median time of its chaining functions per chain ("variant route").
     */
    static Results run(WanTopology t, int runs, Options o, Map<String, List<Integer>> stateBytes,
                       Map<String, Double> chainingUs) throws Exception {
        Results results = new Results();
        Serialization wire = new Serialization(TYPES);
        Map<String, Integer> seen = new ConcurrentHashMap<>(); // "<originator> <hop>" → state bytes
        ServerInterceptor measure = new ServerInterceptor() {
            @Override
            public NextHop interceptChaining(ChainContext context, ChainState state, @Nullable Object result,
                                             ChainingFunction next) throws Exception {
                seen.put(context.originator() + " " + context.hop(), stateBytes(wire, state));
                return next.apply(state, result);
            }
        };
        try (WanCluster wan = WanCluster.of(t, TYPES)) {
            wan.server("gateway", WanTopology.MOUNTAIN_VIEW, b -> b.interceptor(measure)
                    .services((Gateway) order -> switch (order.country()) {
                        case "FR", "DE", "IT", "ES" -> "eu";
                        default -> "us";
                    }));
            wan.server("inventory-eu", WanTopology.REDMOND, b -> b.interceptor(measure).services((Inventory) order -> "Lyon-2"));
            wan.server("inventory-us", WanTopology.MOUNTAIN_VIEW, b -> b.interceptor(measure).services((Inventory) order -> "Reno-1"));
            wan.server("pricing", WanTopology.MOUNTAIN_VIEW, b -> b.interceptor(measure)
                    .services((Pricing) order -> 4_999L * order.quantity()));
            RpccClient client = wan.client("client", WanTopology.CAMBRIDGE);
            ChainingFunctionSource checkout = ChainingFunctionSource.javaResource(Quickstart.class, "/chains/Checkout.java");
            Order eu = new Order("o-1", "FR", "KB-42", 2);
            Order us = new Order("o-2", "US", "KB-42", 2);
            Timing.warmUp(o.warmUp(), wan.emulator(), () -> {
                for (Order order : List.of(eu, us)) {
                    same(continuation(client, checkout, order), sequential(client, order));
                }
            });
            for (int route = 1; route <= 2; route++) {
                Order order = route == 1 ? eu : us;
                List<Double> cont = new ArrayList<>();
                List<Double> seq = new ArrayList<>();
                List<Double> contChaining = new ArrayList<>();
                List<Double> seqChaining = new ArrayList<>();
                for (int r = 0; r < runs; r++) { // alternately, each one first on every other run
                    ChainResult[] last = new ChainResult[2];
                    double c;
                    double q;
                    if (r % 2 == 0) {
                        c = Timing.millis(() -> last[0] = continuation(client, checkout, order));
                        q = Timing.millis(() -> last[1] = sequential(client, order));
                    } else {
                        q = Timing.millis(() -> last[1] = sequential(client, order));
                        c = Timing.millis(() -> last[0] = continuation(client, checkout, order));
                    }
                    cont.add(c);
                    seq.add(q);
                    contChaining.add(last[0].profile().chainingNanos() / 1e3);
                    seqChaining.add(last[1].profile().chainingNanos() / 1e3);
                }
                String[] path = route == 1 ? new String[] {"Cambridge", "Mountain View", "Redmond", "Mountain View"}
                        : new String[] {"Cambridge", "Mountain View", "Mountain View", "Mountain View"};
                chainingUs.put("continuation " + route, Timing.median(contChaining));
                chainingUs.put("sequential " + route, Timing.median(seqChaining));
                results.add(Measurement.measured(SCENARIO, "continuation", route, Timing.median(cont), 3));
                results.add(Measurement.measured(SCENARIO, "sequential", route, Timing.median(seq), 3));
                results.add(Measurement.ideal(SCENARIO, "continuation", route, idealMs(t, path), 3));
            }
            seen.clear();
            stateBytes.put("continuation", perHop(seen, continuation(client, checkout, eu)));
            seen.clear();
            stateBytes.put("sequential", perHop(seen, sequential(client, eu)));
        }
        return results;
    }

    private static ChainResult continuation(RpccClient client, ChainingFunctionSource checkout, Order order) {
        return client.runChain(ChainCall.to("gateway", "region").params(order).chainingFunction(checkout)
                .state(ChainState.of("order", order, "step", "region")));
    }

    private static ChainResult sequential(RpccClient client, Order order) {
        return client.runChain(ChainCall.sequential(SequentialCheckout.class, order));
    }

    private static void same(ChainResult a, ChainResult b) {
        if (!a.value().equals(b.value()) || !a.path().equals(b.path())) {
            throw new IllegalStateException("the two checkouts differ: " + a.value() + " via " + a.path() + " and "
                    + b.value() + " via " + b.path());
        }
    }

    /** The state bytes each hop of {@code r}, the only chain {@code seen} holds, carried, in hop order. */
    private static List<Integer> perHop(Map<String, Integer> seen, ChainResult r) {
        List<Integer> out = new ArrayList<>();
        for (int hop = 1; hop <= r.hops(); hop++) {
            out.add(seen.get(r.originator() + " " + hop));
        }
        return out;
    }

    /** What the wire writes for {@code state}: its entries' names and values, as Kryo encodes them. */
    static int stateBytes(Serialization wire, ChainState state) {
        return wire.withKryo(kryo -> {
            com.esotericsoftware.kryo.io.Output out = new com.esotericsoftware.kryo.io.Output(256, -1);
            out.writeVarInt(state.size(), true);
            for (Map.Entry<String, Object> e : state.asMap().entrySet()) {
                out.writeString(e.getKey());
                kryo.writeClassAndObject(out, e.getValue());
            }
            return out.position();
        });
    }

    /** One-way latencies along {@code sites}, and back to the first. */
    static double idealMs(WanTopology t, String... sites) {
        long nanos = 0;
        for (int i = 0; i < sites.length; i++) {
            nanos += t.link(sites[i], sites[(i + 1) % sites.length]).latency().toNanos();
        }
        return nanos / 1e6;
    }
}
