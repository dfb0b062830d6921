package io.rpcc.examples.spring;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.micrometer.core.instrument.MeterRegistry;
import io.rpcc.client.ChainCall;
import io.rpcc.client.RpccClient;
import io.rpcc.core.ChainResult;
import io.rpcc.core.ServiceFunctionException;
import io.rpcc.core.StaticRoute;
import io.rpcc.core.TransactionAbortedException;
import io.rpcc.examples.spring.catalog.CatalogApplication;
import io.rpcc.client.ReplySet;
import io.rpcc.examples.spring.checkout.CheckoutService;
import io.rpcc.examples.spring.checkout.CheckoutApplication;
import io.rpcc.examples.spring.model.CatalogueImport;
import io.rpcc.examples.spring.model.Order;
import io.rpcc.examples.spring.model.Quote;
import io.rpcc.examples.spring.model.Shipment;
import io.rpcc.examples.spring.model.StockLevel;
import io.rpcc.examples.spring.shipping.ShippingApplication;
import io.rpcc.observability.RpccObservations;
import io.rpcc.server.RpccServer;
import java.io.ByteArrayInputStream;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.health.contributor.HealthIndicator;
import org.springframework.boot.health.contributor.Status;
import org.springframework.context.ConfigurableApplicationContext;

/**
 * The sample's three Spring Boot applications in one JVM, rpcc on free ports: the checkout
 * application's client starts a chain at the catalog (app A), which sends it on to shipping (app B),
 * whose result comes straight back to the client. The atomic checkout takes the catalog's stock and books
 * shipping's shipment in one transaction over both applications' {@code TxMap}s.
 */
class CheckoutAcrossTwoAppsTest {
    private static ConfigurableApplicationContext shipping;
    private static ConfigurableApplicationContext catalog;
    private static ConfigurableApplicationContext checkout;

    @BeforeAll
    static void startTheApplications() {
        shipping = start(ShippingApplication.class, "shipping", "--rpcc.server.port=0");
        catalog = start(CatalogApplication.class, "catalog", "--rpcc.server.port=0",
                "--rpcc.peers.shipping=127.0.0.1:" + portOf(shipping));
        checkout = start(CheckoutApplication.class, "checkout", "--server.port=0",
                "--rpcc.peers.catalog=127.0.0.1:" + portOf(catalog),
                // the atomic checkout's tests read shipping's bookings
                "--rpcc.peers.shipping=127.0.0.1:" + portOf(shipping));
    }

    @AfterAll
    static void stopTheApplications() {
        for (ConfigurableApplicationContext app : new ConfigurableApplicationContext[] {checkout, catalog, shipping}) {
            if (app != null) {
                app.close();
            }
        }
    }

    private static ConfigurableApplicationContext start(Class<?> application, String configName, String... args) {
        return new SpringApplicationBuilder(application).properties("spring.config.name=" + configName).run(args);
    }

    private static int portOf(ConfigurableApplicationContext app) {
        return app.getBean(RpccServer.class).address().getPort();
    }

    @Test
    void anOrderIsPricedByTheCatalogAndShippedByShippingInOneChain() {
        Shipment shipment = checkout.getBean(CheckoutService.class).checkout(new Order("o-1", "KB-42", 2, "FR"));
        assertThat(shipment).isEqualTo(new Shipment("o-1", 9998, "road", 2));

        ChainResult result = checkout.getBean(RpccClient.class).runChain(ChainCall.along(
                StaticRoute.of(StaticRoute.hop("catalog", "price"), StaticRoute.hop("shipping", "ship")),
                new Order("o-2", "MOUSE-7", 1, "US")));
        assertThat(result.path()).containsExactly("catalog", "shipping");
        assertThat(result.originator()).matches("checkout-[0-9a-f]{8}"); // unique per instance

        assertThat(result.value(Shipment.class).carrier()).isEqualTo("air");
    }

    @Test
    void theCheckoutChainingFunctionSendsAQuoteFromEachServerThenTheShipment() {
        ReplySet<Quote> replies = checkout.getBean(CheckoutService.class).start(new Order("o-5", "MOUSE-7", 3, "FR"));
        // from two servers on two connections: in either order (the catalog's from its function runner)
        assertThat(replies.stream().toList()).containsExactlyInAnyOrder(new Quote("o-5", "priced", 5997),
                new Quote("o-5", "shipped", 5997));
        assertThat(replies.result().join().value()).isEqualTo(new Shipment("o-5", 5997, "road", 2));
        assertThat(replies.result().join().path()).containsExactly("catalog", "shipping");
    }

    @Test
    void theSequentialCheckoutHasTheSameResultPathAndRepliesAsTheContinuationStyleOne() {
        CheckoutService service = checkout.getBean(CheckoutService.class);
        Order order = new Order("o-6", "KB-42", 2, "DE");
        CheckoutService.CheckoutOutcome sequential = service.outcome("sequential", order);
        CheckoutService.CheckoutOutcome continuation = service.outcome("continuation", order);
        assertThat(sequential.shipment()).isEqualTo(new Shipment("o-6", 9998, "air", 5)).isEqualTo(continuation.shipment());
        assertThat(sequential.path()).containsExactly("catalog", "shipping").isEqualTo(continuation.path());
        assertThat(sequential.quotes()).containsExactlyInAnyOrderElementsOf(continuation.quotes())
                .containsExactlyInAnyOrder(new Quote("o-6", "priced", 9998), new Quote("o-6", "shipped", 9998));
    }

    @Test
    void aCatalogueFileStreamsToTheCatalogsStreamingServiceMethod() {
        String file = "KB-42;4999\nMOUSE-7;1999\n\nPAD-1;500\n";
        CatalogueImport imported = checkout.getBean(CheckoutService.class).importCatalogue("small.csv",
                new ByteArrayInputStream(file.getBytes(StandardCharsets.UTF_8)));
        assertThat(imported.products()).isEqualTo(3);
        assertThat(imported.bytes()).isEqualTo(file.length());
        assertThat(imported.totalCents()).isEqualTo(7498);
        assertThat(catalog.getBean(RpccServer.class).streamStats().streamsOpened()).isPositive();
    }

    @Test
    void aFailingHopReachesTheClientAsATypedErrorNamingTheApplication() {
        assertThatThrownBy(() -> checkout.getBean(CheckoutService.class).checkout(new Order("o-3", "NOPE", 1, "FR")))
                .isInstanceOfSatisfying(ServiceFunctionException.class, e -> {
                    assertThat(e.host()).isEqualTo("catalog");
                    assertThat(e.hop()).isEqualTo(1);
                    assertThat(e.remoteMessage()).contains("no such product: NOPE");
                });
    }

    @Test
    void theActuatorSeesHealthRpccsMetricsAndTheTracingsObservationsAsTimers() {
        checkout.getBean(CheckoutService.class).checkout(new Order("o-4", "KB-42", 1, "DE"));

        assertThat(catalog.getBean("rpccHealthIndicator", HealthIndicator.class).health().getStatus())
                .isEqualTo(Status.UP);
        assertThat(shipping.getBean("rpccHealthIndicator", HealthIndicator.class).health().getStatus())
                .isEqualTo(Status.UP);
        // rpcc's meters (RpccMetrics, in the actuator's registry)
        assertThat(checkout.getBean(MeterRegistry.class).get("rpcc.chains.completed").counter().count()).isPositive();
        assertThat(catalog.getBean(MeterRegistry.class).get("rpcc.hop.duration").tag("function", "price").timer().count())
                .isPositive();
        // the actuator also turns the tracing's observations into timers, tagged with their low-cardinality keys
        assertThat(checkout.getBean(MeterRegistry.class).get(RpccObservations.CHAIN)
                .tag(RpccObservations.SERVER, "catalog").tag(RpccObservations.OUTCOME, "SUCCESS").timer().count())
                .isPositive();
        assertThat(catalog.getBean(MeterRegistry.class).get(RpccObservations.HOP)
                .tag(RpccObservations.SERVICE_FUNCTION, "price").timer().count()).isPositive();
        assertThat(shipping.getBean(MeterRegistry.class).get(RpccObservations.HOP)
                .tag(RpccObservations.SERVICE_FUNCTION, "ship").timer().count()).isPositive();
    }

    /** Shipping's bookings of orders starting with {@code prefix}, read in an atomic chain (so after any commit in flight). */
    @SuppressWarnings("unchecked")
    private static List<Shipment> bookings(String prefix) {
        return (List<Shipment>) checkout.getBean(RpccClient.class)
                .runChain(ChainCall.to("shipping", "bookings").params(prefix).atomic()).value();
    }

    @Test
    void anAtomicCheckoutTakesTheCatalogsStockAndBooksShippingsShipmentInOneTransaction() {
        CheckoutService service = checkout.getBean(CheckoutService.class);
        int before = service.stock("KB-42").onHand();

        Shipment shipment = service.atomicCheckout(new Order("tx-1", "KB-42", 2, "FR"));

        assertThat(shipment).isEqualTo(new Shipment("tx-1", 9998, "road", 2));
        assertThat(service.stock("KB-42")).isEqualTo(new StockLevel("KB-42", before - 2));
        assertThat(bookings("tx-1")).containsExactly(shipment);
    }

    @Test
    void anAtomicCheckoutThatShippingRefusesLeavesTheCatalogsStockUnchanged() {
        CheckoutService service = checkout.getBean(CheckoutService.class);
        StockLevel before = service.stock("MOUSE-7");

        assertThatThrownBy(() -> service.atomicCheckout(new Order("tx-2", "MOUSE-7", 1, "AQ")))
                .isInstanceOfSatisfying(TransactionAbortedException.class, e -> {
                    assertThat(e.host()).isEqualTo("shipping");
                    assertThat(e.hop()).isEqualTo(2);
                    assertThat(e.getMessage()).contains("no carrier ships to AQ (order tx-2)");
                });

        assertThat(service.stock("MOUSE-7")).as("reserve's change at the catalog was rolled back").isEqualTo(before);
        assertThat(bookings("tx-2")).isEmpty();
    }

    @Test
    void anAtomicCheckoutForMoreThanTheStockIsRefusedAtTheCatalogAndNothingIsBooked() {
        CheckoutService service = checkout.getBean(CheckoutService.class);
        StockLevel before = service.stock("KB-42");

        assertThatThrownBy(() -> service.atomicCheckout(new Order("tx-3", "KB-42", before.onHand() + 1, "FR")))
                .isInstanceOfSatisfying(TransactionAbortedException.class, e -> {
                    assertThat(e.host()).isEqualTo("catalog");
                    assertThat(e.getMessage()).contains("the catalog has " + before.onHand());
                });
        assertThat(service.stock("KB-42")).isEqualTo(before);
        assertThat(bookings("tx-3")).isEmpty();
    }

    @Test
    void reserveInAChainThatIsNotAtomicIsRefusedAndSaysToUseAnAtomicChain() {
        CheckoutService service = checkout.getBean(CheckoutService.class);
        StockLevel before = service.stock("KB-42");

        assertThatThrownBy(() -> checkout.getBean(RpccClient.class).runChain(ChainCall.along(
                StaticRoute.of(StaticRoute.hop("catalog", "reserve"), StaticRoute.hop("shipping", "book")),
                new Order("tx-4", "KB-42", 1, "FR"))))
                .isInstanceOfSatisfying(ServiceFunctionException.class, e -> {
                    assertThat(e.host()).isEqualTo("catalog");
                    assertThat(e.remoteMessage()).contains("outside an atomic chain")
                            .contains("Run the service function in an atomic chain");
                });
        assertThat(service.stock("KB-42")).isEqualTo(before);
    }
}
