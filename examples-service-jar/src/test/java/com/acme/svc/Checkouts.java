package com.acme.svc;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;

import io.rpcc.client.ChainCall;
import io.rpcc.client.ReplySet;
import io.rpcc.client.RpccClient;
import io.rpcc.core.ChainResult;
import io.rpcc.core.ChainState;
import io.rpcc.core.ChainingFunctionSource;
import io.rpcc.core.StaticRoute;
import io.rpcc.core.TypeRegistry;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.List;
import java.util.stream.Stream;

/**
 * The chain both integration tests run: {@code order} at the first node, {@code price} at the second,
 * {@code reserve} at the third, steered by the Java chaining function {@code functions/Checkout.java},
 * which imports {@code com.acme.svc.Order}, {@code Quote}, {@code Receipt} and {@code Progress} and sends a
 * {@code Progress} partial reply after each hop; {@code price} sends one per order line.
 */
final class Checkouts {
    /** The chaining function's source, sent with the chain and compiled by each node. */
    static final ChainingFunctionSource CHECKOUT = ChainingFunctionSource.javaResource(Checkouts.class, "/functions/Checkout.java");

    private Checkouts() {
    }

    /** The client's types: the same registrations as the nodes' (OrderModule). */
    static TypeRegistry types() {
        return OrderModule.registerTypesOn(TypeRegistry.builder()).build();
    }

    /** Runs the checkout of order {@code A-17} through {@code first}, {@code pricing} and {@code stock}, and checks the result and every reply. */
    static void runAndCheck(RpccClient client, String first, String pricing, String stock) {
        ReplySet<Progress> replies = client.startChainWithReplies(ChainCall.to(first, "order").params("A-17")
                .chainingFunction(CHECKOUT).state(ChainState.of("pricing", pricing, "stock", stock)), Progress.class);

        List<Progress> received = replies.stream().toList();
        ChainResult result = replies.result().join();

        assertEquals(new Receipt("A-17", "ada", 3 * 150 + 2 * 900, pricing, stock), result.value());
        assertEquals(List.of(first, pricing, stock), result.path());
        assertFalse(replies.isPartial(), "the reply set ended complete");
        // replies from different nodes may arrive in any order: compare them sorted
        Comparator<Progress> order = Comparator.comparing(Progress::toString);
        assertEquals(Stream.of(
                        new Progress("A-17", "loaded 2 lines for ada", first),
                        new Progress("A-17", "priced pen", pricing),
                        new Progress("A-17", "priced ink", pricing),
                        new Progress("A-17", "quoted 2250 cents", pricing),
                        new Progress("A-17", "reserved", stock)).sorted(order).toList(),
                received.stream().sorted(order).toList());
    }

    /**
     * Runs the static route {@code order} at {@code first} then {@code price} at {@code pricing} (no
     * chaining function of the application's: the route's own steers it), and checks the quote, the
     * path and the two partial replies {@code price} sends with the application's {@code Progress}.
     */
    static void runStaticRouteAndCheck(RpccClient client, String first, String pricing) {
        StaticRoute route = StaticRoute.of(StaticRoute.hop(first, "order"), StaticRoute.hop(pricing, "price"));
        ReplySet<Progress> replies = client.startChainWithReplies(ChainCall.along(route, "B-9"), Progress.class);

        List<Progress> received = replies.stream().toList();
        ChainResult result = replies.result().join();

        assertEquals(new Quote("B-9", 3 * 150 + 2 * 900, pricing), result.value());
        assertEquals(List.of(first, pricing), result.path());
        assertFalse(replies.isPartial(), "the reply set ended complete");
        assertEquals(List.of(new Progress("B-9", "priced pen", pricing), new Progress("B-9", "priced ink", pricing)),
                received, "one hop's replies arrive in the order it sent them");
    }

    /** The service jar the build packaged (target/acme-orders.jar). */
    static Path serviceJar() {
        Path jar = Path.of(System.getProperty("acme.service.jar", "target/acme-orders.jar")).toAbsolutePath();
        if (!Files.isRegularFile(jar)) {
            throw new IllegalStateException(jar + " is missing: the integration tests run after package (Failsafe)");
        }
        return jar;
    }
}
