package io.rpcc.examples.quickstart;

import io.rpcc.client.ChainCall;
import io.rpcc.client.RpccClient;
import io.rpcc.core.ChainContext;
import io.rpcc.core.ChainResult;
import io.rpcc.core.ChainState;
import io.rpcc.core.ChainingFunctionSource;
import io.rpcc.core.ConsoleLine;
import io.rpcc.core.StaticNameResolver;
import io.rpcc.core.TypeRegistry;
import io.rpcc.server.RpccServer;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * The quickstart: five servers and a client in one JVM, on loopback. A checkout chain goes
 * gateway → inventory-(eu|us) → pricing, choosing the inventory server from the gateway's answer,
 * and the quote goes straight from pricing to the client. Then the same chain runs in interactive
 * mode (every chaining function at the client) and must give the same result; and the same checkout
 * written as straight-line code ({@link SequentialCheckout}), which takes the same path.
 */
public final class Quickstart {
    private Quickstart() {
    }

    public static void main(String[] args) {
        String country = args.length > 0 ? args[0] : "FR";
        TypeRegistry types = TypeRegistry.of(Order.class, Quote.class);
        StaticNameResolver names = new StaticNameResolver();
        Map<String, Long> pricesCents = Map.of("KB-42", 4_999L, "MS-7", 2_450L);
        List<AutoCloseable> nodes = new ArrayList<>();
        try {
            // each server implements a service interface (@ServiceMethod): its methods are its service functions
            nodes.add(start(names, RpccServer.builder("gateway").types(types)
                    .services((Gateway) order -> {
                        ChainContext.current().console().println("gateway received order " + order.id());
                        return switch (order.country()) {
                            case "FR", "DE", "IT", "ES" -> "eu";
                            default -> "us";
                        };
                    })));
            nodes.add(start(names, RpccServer.builder("inventory-eu").types(types)
                    .services((Inventory) order -> "Lyon-2")));
            nodes.add(start(names, RpccServer.builder("inventory-us").types(types)
                    .services((Inventory) order -> "Reno-1")));
            nodes.add(start(names, RpccServer.builder("pricing").types(types)
                    .services((Pricing) order -> pricesCents.getOrDefault(order.sku(), 1_000L) * order.quantity())));

            RpccClient client = RpccClient.builder().name("client").resolver(names).types(types).build().start();
            nodes.add(client);

            Order order = new Order("o-1001", country, "KB-42", 2);
            ChainingFunctionSource checkout = ChainingFunctionSource.javaResource(Quickstart.class, "/chains/Checkout.java");
            ChainCall call = ChainCall.to("gateway", "region")
                    .params(order)
                    .chainingFunction(checkout)
                    .state(ChainState.of("order", order, "step", "region"));

            ChainResult chained = client.runChain(call);
            print("chain mode (chaining functions run at the servers)", chained);

            // The route depends on the gateway's answer: an order for another region takes another path.
            Order other = new Order("o-1002", country.equals("US") ? "FR" : "US", "MS-7", 1);
            ChainResult otherRoute = client.runChain(call.params(other).state(ChainState.of("order", other, "step", "region")));
            System.out.println("== another order, another route");
            System.out.println("path:    " + pathOf(otherRoute));
            System.out.println("result:  " + otherRoute.value());
            System.out.println();

            ChainResult interactive = client.runChain(call.interactive(true));
            print("interactive mode (chaining functions run at the client, as plain RPCs)", interactive);

            boolean same = chained.value().equals(interactive.value()) && chained.path().equals(interactive.path());
            System.out.println("same result and path in both modes: " + same);

            // The same checkout as straight-line code (SequentialCheckout): replayed at each hop, same hops.
            ChainResult sequential = client.runChain(ChainCall.sequential(SequentialCheckout.class, order));
            print("sequential chain (straight-line code, replayed at each server)", sequential);
            boolean sameSequential = chained.value().equals(sequential.value()) && chained.path().equals(sequential.path());
            System.out.println("same result and path as the continuation-style chain: " + sameSequential);
            if (!same || !sameSequential) {
                System.exit(1);
            }
        } finally {
            for (AutoCloseable n : nodes) {
                try {
                    n.close();
                } catch (Exception e) {
                    // closing
                }
            }
        }
    }

    private static RpccServer start(StaticNameResolver names, RpccServer.Builder builder) {
        RpccServer server = builder.resolver(names).build().start();
        names.register(server.name(), server.address());
        return server;
    }

    private static String pathOf(ChainResult r) {
        return r.originator() + " → " + String.join(" → ", r.path()) + " → " + r.originator();
    }

    private static void print(String title, ChainResult r) {
        System.out.println("== " + title);
        System.out.println("path:    " + pathOf(r));
        System.out.println("result:  " + r.value());
        System.out.println("console:");
        for (ConsoleLine line : r.console()) {
            System.out.println("  " + line);
        }
        System.out.println("timings:");
        r.profile().toString().lines().forEach(l -> System.out.println("  " + l));
        System.out.println();
    }
}
