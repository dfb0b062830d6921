package io.rpcc.spring.boot.autoconfigure;

import static io.micrometer.observation.tck.TestObservationRegistryAssert.assertThat;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.micrometer.observation.ObservationRegistry;
import io.micrometer.observation.tck.TestObservationRegistry;
import io.rpcc.client.ChainCall;
import io.rpcc.client.ReplySet;
import io.rpcc.client.RpccClient;
import io.rpcc.core.ChainContext;
import io.rpcc.core.ServiceFunctionException;
import io.rpcc.core.StaticNameResolver;
import io.rpcc.core.TypeRegistry;
import io.rpcc.observability.RpccObservations;
import io.rpcc.server.RpccServer;
import io.rpcc.spring.boot.RpccNodeLifecycle;
import io.rpcc.spring.boot.RpccServerCustomizer;
import io.rpcc.spring.boot.autoconfigure.TestServices.Order;
import io.rpcc.spring.boot.autoconfigure.scan.Discount;
import io.rpcc.spring.boot.autoconfigure.scan.Invoice;
import io.rpcc.spring.boot.autoconfigure.scan.NotAnRpccType;
import io.rpcc.spring.boot.autoconfigure.scan.Quote;
import io.rpcc.spring.boot.autoconfigure.scan.ScanApplication;
import io.rpcc.spring.boot.health.RpccClientHealthIndicator;
import io.rpcc.spring.boot.reactor.RpccReactive;
import io.rpcc.spring.boot.reactor.RpccReactive.ReplyEvent;
import java.net.ServerSocket;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.health.contributor.Health;
import org.springframework.boot.health.contributor.Status;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.context.ConfigurableApplicationContext;
import reactor.core.publisher.Flux;

/**
 * The Spring idioms, on real nodes: @RpccType package scan merged with rpcc.types and an application's
 * registry, start and stop log lines, keep-alive, the client-only health indicator, the stable client tag,
 * and ReplySets as Reactor Fluxes.
 */
@ExtendWith(OutputCaptureExtension.class)
class RpccSpringIdiomsTest {
    private static final String SCAN = "io.rpcc.spring.boot.autoconfigure.scan";

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(RpccAutoConfiguration.class,
                    RpccHealthContributorAutoConfiguration.class, RpccTracingAutoConfiguration.class,
                    RpccMetricsAutoConfiguration.class));

    /** Sends {@code params} (a count) quotes as partial replies, then returns "done"; "fail" fails after one. */
    static RpccServerCustomizer quoteServices() {
        return builder -> builder
                .service("quotes", params -> {
                    int n = (Integer) params;
                    for (int i = 1; i <= n; i++) {
                        ChainContext.current().preturn(new Quote("q" + i, i * 100L));
                    }
                    return "done";
                })
                .service("quotesThenFail", params -> {
                    ChainContext.current().preturn(new Quote("q1", 100L));
                    throw new IllegalStateException("out of quotes");
                })
                .service("invoice", params -> {
                    Quote quote = (Quote) params;
                    return new Invoice("i-" + quote.sku(), List.of(new Invoice.Line(quote.sku(), 2)));
                });
    }

    @Test
    void rpccTypeClassesOfTheScannedPackagesAreRegisteredWithTheListedOnesAndTravel() {
        runner.withPropertyValues("rpcc.server.name=s1", "rpcc.types-packages=" + SCAN,
                        "rpcc.types=" + Order.class.getName())
                .withBean(RpccServerCustomizer.class, RpccSpringIdiomsTest::quoteServices)
                .run(context -> {
                    Map<Class<?>, Integer> ids = ids(context.getBean(TypeRegistry.class));
                    assertThat(ids).containsEntry(Quote.class, TypeRegistry.nameDerivedId(Quote.class))
                            .containsEntry(Invoice.class, 321)
                            .containsEntry(Invoice.Line.class, TypeRegistry.nameDerivedId(Invoice.Line.class))
                            .containsEntry(Order.class, TypeRegistry.nameDerivedId(Order.class))
                            .doesNotContainKeys(NotAnRpccType.class, Discount.class);
                    Object invoice = context.getBean(RpccClient.class).call("s1", "invoice", new Quote("KB", 5)).join()
                            .value();
                    assertThat(invoice).isEqualTo(new Invoice("i-KB", List.of(new Invoice.Line("KB", 2))));
                });
    }

    @Test
    void anApplicationsTypeRegistryKeepsItsIdsAndTheNodesAlsoGetTheScannedTypes() {
        TypeRegistry own = TypeRegistry.builder().register(Order.class, 555).build();
        runner.withPropertyValues("rpcc.server.name=s1", "rpcc.types-packages=" + SCAN)
                .withBean(TypeRegistry.class, () -> own)
                .withBean(RpccServerCustomizer.class, RpccSpringIdiomsTest::quoteServices)
                .withBean(TestServices.Inventory.class)
                .run(context -> {
                    assertThat(context.getBean(TypeRegistry.class)).isSameAs(own);
                    RpccClient client = context.getBean(RpccClient.class);
                    assertThat(client.call("s1", "stock", new Order("abc", 2)).join().value()).isEqualTo(6);
                    assertThat(client.call("s1", "invoice", new Quote("X", 1)).join().value()).isInstanceOf(Invoice.class);
                    // the node itself uses the application's id: a client outside the context that knows Order
                    // only as 555 is understood (with the name-derived id it would be refused as unregistered)
                    StaticNameResolver names = new StaticNameResolver();
                    names.register("s1", context.getBean(RpccServer.class).address());
                    try (RpccClient outside = RpccClient.builder().name("outside").resolver(names)
                            .types(TypeRegistry.builder().register(Order.class, 555).build()).build().start()) {
                        assertThat(outside.call("s1", "stock", new Order("abc", 2)).join().value()).isEqualTo(6);
                    }
                });
    }

    @Test
    void theDefaultScanIsTheApplicationsPackageAndAnEmptyListScansNothing() {
        try (ConfigurableApplicationContext app = new SpringApplicationBuilder(ScanApplication.class)
                .web(WebApplicationType.NONE).run("--rpcc.server.name=scan", "--spring.jmx.enabled=false")) {
            assertThat(ids(app.getBean(TypeRegistry.class))).containsKeys(Quote.class, Invoice.class, Invoice.Line.class)
                    .doesNotContainKey(NotAnRpccType.class);
        }
        try (ConfigurableApplicationContext app = new SpringApplicationBuilder(ScanApplication.class)
                .web(WebApplicationType.NONE).run("--rpcc.server.name=scan", "--rpcc.types-packages=")) {
            assertThat(app.getBean(TypeRegistry.class).registrations()).isEmpty();
        }
    }

    @Test
    void aTypeInTwoPlacesIsRegisteredOnceWithItsAnnotationsId() {
        runner.withPropertyValues("rpcc.server.enabled=false", "rpcc.types-packages=" + SCAN,
                        "rpcc.types=" + Invoice.class.getName())
                .run(context -> assertThat(ids(context.getBean(TypeRegistry.class))).containsEntry(Invoice.class, 321));
        runner.withPropertyValues("rpcc.server.enabled=false", "rpcc.types-packages=", "rpcc.types=" + Invoice.class.getName())
                .run(context -> assertThat(ids(context.getBean(TypeRegistry.class))).containsEntry(Invoice.class, 321));
    }

    @Test
    void nodesLogWhenTheyStartAndStop(CapturedOutput output) throws Exception {
        int peerPort = freePort();
        runner.withPropertyValues("rpcc.server.name=s1", "rpcc.client.name=c1", "rpcc.shutdown-grace=1s",
                        "rpcc.peers.elsewhere=127.0.0.1:" + peerPort)
                .withBean(TestServices.Inventory.class)
                .run(context -> {
                    RpccServer server = context.getBean(RpccServer.class);
                    assertThat(server.services()).contains("stock", "ping");
                    assertThat(output).contains("rpcc server 's1' started on " + server.address()
                                    + " (reached at 127.0.0.1:" + server.address().getPort() + ", transport nio), services: [")
                            .contains("stock").contains("rpcc client 'c1' started on " + context.getBean(RpccClient.class).address()
                                    + " (transport nio), peers: {elsewhere=127.0.0.1:" + peerPort + "}")
                            .doesNotContain("stopped after");
                });
        assertThat(output).contains("rpcc server 's1' stopping: running hops get up to 1000 ms")
                .contains("rpcc server 's1' stopped after").contains("rpcc client 'c1' stopped after");
        assertThat(output.toString().indexOf("rpcc server 's1' stopped after"))
                .isLessThan(output.toString().indexOf("rpcc client 'c1' stopped after"));
    }

    @Test
    void aRunningServerKeepsTheJvmAliveUntilItStops() throws Exception {
        runner.withPropertyValues("rpcc.server.name=alive").run(context -> assertThat(keepAliveThread("alive"))
                .hasValueSatisfying(thread -> assertThat(thread.isDaemon()).isFalse()));
        for (int i = 0; i < 100 && keepAliveThread("alive").isPresent(); i++) {
            Thread.sleep(20);
        }
        assertThat(keepAliveThread("alive")).isEmpty();
        runner.withPropertyValues("rpcc.server.name=notalive", "rpcc.server.keep-alive=false")
                .run(context -> assertThat(keepAliveThread("notalive")).isEmpty());
    }

    private static java.util.Optional<Thread> keepAliveThread(String server) {
        return Thread.getAllStackTraces().keySet().stream()
                .filter(t -> t.getName().equals("rpcc-keep-alive-" + server) && t.isAlive()).findFirst();
    }

    @Test
    void theClientIsNamedAfterTheApplicationWithAUniqueSuffix() {
        TestObservationRegistry registry = TestObservationRegistry.create();
        runner.withPropertyValues("spring.application.name=checkout", "rpcc.server.name=s1")
                .withBean(ObservationRegistry.class, () -> registry)
                .withBean(TestServices.Inventory.class)
                .run(context -> {
                    String name = context.getBean(RpccClient.class).name();
                    assertThat(name).matches("checkout-[0-9a-f]{8}");
                    assertThat(context.getBean(RpccClient.class).runChain(ChainCall.to("s1", "ping")).originator())
                            .isEqualTo(name);
                    // traced, without the client's name (unique per instance) among the tags
                    assertThat(registry).hasObservationWithNameEqualTo(RpccObservations.CHAIN).that()
                            .doesNotHaveLowCardinalityKeyValueWithKey("rpcc.client");
                });
        // a name that is set is the name
        runner.withPropertyValues("spring.application.name=checkout", "rpcc.server.enabled=false", "rpcc.client.name=c7")
                .run(context -> assertThat(context.getBean(RpccClient.class).name()).isEqualTo("c7"));
        // no application name: rpcc's own default
        runner.withPropertyValues("rpcc.server.enabled=false")
                .run(context -> assertThat(context.getBean(RpccClient.class).name()).startsWith("client-"));
    }

    @Test
    void aClientOnlyApplicationIsHealthyWhenItsPeersAreReachable() throws Exception {
        try (RpccServer peer = RpccServer.builder("catalog").resolver(new StaticNameResolver())
                .service("ping", p -> "pong").build().start()) {
            String catalog = "rpcc.peers.catalog=127.0.0.1:" + peer.address().getPort();
            int closedPort = freePort();
            runner.withPropertyValues("rpcc.server.enabled=false", catalog).run(context -> {
                assertThat(context).hasSingleBean(RpccClientHealthIndicator.class).hasBean("rpccHealthIndicator");
                Health up = context.getBean(RpccClientHealthIndicator.class).health();
                assertThat(up.getStatus()).isEqualTo(Status.UP);
                assertThat(peerDetails(up, "catalog")).containsEntry("reachable", true)
                        .containsEntry("address", "127.0.0.1:" + peer.address().getPort());

                context.getBean("rpccClientLifecycle", RpccNodeLifecycle.class).stop();
                assertThat(context.getBean(RpccClientHealthIndicator.class).health().getStatus()).isEqualTo(Status.DOWN);
            });
            runner.withPropertyValues("rpcc.server.enabled=false", catalog,
                    "rpcc.peers.shipping=127.0.0.1:" + closedPort).run(context -> {
                Health down = context.getBean(RpccClientHealthIndicator.class).health();
                assertThat(down.getStatus()).isEqualTo(Status.DOWN);
                assertThat(down.getDetails()).containsEntry("name", context.getBean(RpccClient.class).name());
                assertThat(peerDetails(down, "catalog")).containsEntry("reachable", true);
                assertThat(peerDetails(down, "shipping")).containsEntry("reachable", false)
                        .containsEntry("addresses", List.of("127.0.0.1:" + closedPort)).containsKey("error");
            });
            // with a server, the server's indicator is the rpcc component
            runner.withPropertyValues("rpcc.server.name=s1", catalog)
                    .run(context -> assertThat(context).doesNotHaveBean(RpccClientHealthIndicator.class)
                            .hasBean("rpccHealthIndicator"));
        }
    }

    @Test
    void aReplySetIsAFluxOfItsRepliesThatCompletesOrFailsWithTheChain() {
        runner.withPropertyValues("rpcc.server.name=s1", "rpcc.types-packages=" + SCAN)
                .withBean(RpccServerCustomizer.class, RpccSpringIdiomsTest::quoteServices)
                .run(context -> {
                    RpccClient client = context.getBean(RpccClient.class);
                    ReplySet<Quote> replies = client.startChainWithReplies(ChainCall.to("s1", "quotes").params(3), Quote.class);
                    assertThat(RpccReactive.flux(replies).collectList().block(Duration.ofSeconds(20)))
                            .containsExactly(new Quote("q1", 100), new Quote("q2", 200), new Quote("q3", 300));

                    List<ReplyEvent<Quote>> events = RpccReactive.events(
                            client.startChainWithReplies(ChainCall.to("s1", "quotes").params(2), Quote.class))
                            .collectList().block(Duration.ofSeconds(20));
                    assertThat(events).extracting(ReplyEvent::name).containsExactly("reply", "reply", "result");
                    assertThat(((ReplyEvent.Result<Quote>) events.get(2)).result().value()).isEqualTo("done");

                    assertThat(RpccReactive.result(client.startChainWithReplies(ChainCall.to("s1", "quotes").params(1),
                            Quote.class)).block(Duration.ofSeconds(20)).value()).isEqualTo("done");

                    Flux<Quote> failing = RpccReactive.flux(
                            client.startChainWithReplies(ChainCall.to("s1", "quotesThenFail"), Quote.class));
                    List<Object> signals = new java.util.concurrent.CopyOnWriteArrayList<>();
                    assertThatThrownBy(() -> failing.doOnNext(signals::add).blockLast(Duration.ofSeconds(20)))
                            .isInstanceOfSatisfying(ServiceFunctionException.class,
                                    e -> assertThat(e.remoteMessage()).contains("out of quotes"));
                    assertThat(signals).containsExactly(new Quote("q1", 100));
                });
    }

    @Test
    void cancellingTheFluxCancelsTheChain() {
        java.util.concurrent.CountDownLatch producerStopped = new java.util.concurrent.CountDownLatch(1);
        RpccServerCustomizer endless = builder -> builder.service("endless", params -> {
            try {
                for (int i = 0; ; i++) {
                    ChainContext.current().preturn(new Quote("q" + i, i));
                    Thread.sleep(20);
                }
            } finally {
                producerStopped.countDown();
            }
        });
        runner.withPropertyValues("rpcc.server.name=s1", "rpcc.types-packages=" + SCAN)
                .withBean(RpccServerCustomizer.class, () -> endless)
                .run(context -> {
                    ReplySet<Quote> replies = context.getBean(RpccClient.class).startChainWithReplies(
                            ChainCall.to("s1", "endless").timeout(Duration.ofSeconds(60)), Quote.class);
                    assertThat(RpccReactive.flux(replies).take(2).collectList().block(Duration.ofSeconds(20))).hasSize(2);
                    assertThat(producerStopped.await(10, java.util.concurrent.TimeUnit.SECONDS)).isTrue();
                    assertThat(replies.isDone()).isTrue();
                    assertThat(replies.error()).isInstanceOf(io.rpcc.core.ChainCancelledException.class);
                });
    }

    private static Map<Class<?>, Integer> ids(TypeRegistry types) {
        Map<Class<?>, Integer> ids = new java.util.HashMap<>();
        types.registrations().forEach(r -> ids.put(r.type(), r.id()));
        return ids;
    }

    @SuppressWarnings("unchecked")
    private static Map<String, Object> peerDetails(Health health, String peer) {
        return (Map<String, Object>) ((Map<String, Object>) health.getDetails().get("peers")).get(peer);
    }

    private static int freePort() throws Exception {
        try (ServerSocket socket = new ServerSocket(0)) {
            return socket.getLocalPort();
        }
    }
}
