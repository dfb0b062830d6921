package io.rpcc.spring.boot.autoconfigure;

import static io.micrometer.observation.tck.TestObservationRegistryAssert.assertThat;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.micrometer.observation.ObservationRegistry;
import io.micrometer.observation.tck.TestObservationRegistry;
import io.opentelemetry.api.trace.SpanKind;
import io.opentelemetry.sdk.trace.data.SpanData;
import io.rpcc.client.ChainCall;
import io.rpcc.client.ChainDecorator;
import io.rpcc.client.ReplySet;
import io.rpcc.client.RpccClient;
import io.rpcc.core.HopRejectedException;
import io.rpcc.core.ServiceFunctionException;
import io.rpcc.core.StaticRoute;
import io.rpcc.observability.RpccMetrics;
import io.rpcc.observability.RpccObservations;
import io.rpcc.observability.RpccTracing;
import io.rpcc.observability.testing.OtelTracing;
import io.rpcc.server.HopDecorator;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Function;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.micrometer.metrics.autoconfigure.CompositeMeterRegistryAutoConfiguration;
import org.springframework.boot.micrometer.metrics.autoconfigure.MetricsAutoConfiguration;
import org.springframework.boot.micrometer.metrics.autoconfigure.export.simple.SimpleMetricsExportAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

/**
 * Traces and metrics of the auto-configured server and client: {@link RpccTracing} applied when the
 * application has an {@code ObservationRegistry} (here a TestObservationRegistry, or one with Micrometer
 * Tracing's OpenTelemetry bridge), {@link RpccMetrics} applied and bound when it has a {@code MeterRegistry};
 * each turned off by its property.
 */
class RpccObservationTest {
    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(RpccAutoConfiguration.class,
                    RpccHealthContributorAutoConfiguration.class, RpccTracingAutoConfiguration.class,
                    RpccMetricsAutoConfiguration.class))
            .withPropertyValues("rpcc.server.name=s1", "rpcc.client.name=c1")
            .withBean(TestServices.Inventory.class);

    @Test
    void aChainIsObservedAtTheClientAndEachHopAtTheServer() {
        TestObservationRegistry registry = TestObservationRegistry.create();
        runner.withBean(ObservationRegistry.class, () -> registry).run(context -> {
            assertThat(context).hasSingleBean(RpccTracing.class);
            assertThat(context.getBean(RpccTracing.class).registry()).isSameAs(registry);
            RpccClient client = context.getBean(RpccClient.class);
            // two hops: ping at s1, then ping at s1 again
            var result = client.runChain(ChainCall.along(StaticRoute.of(StaticRoute.hop("s1", "ping"),
                    StaticRoute.hop("s1", "ping")), null));
            assertThat(result.value()).isEqualTo("pong");

            // a hop's observation ends when the hop is done, which may be just after the client has the result
            eventually(() -> assertThat(registry).hasNumberOfObservationsWithNameEqualTo(RpccObservations.CHAIN, 1)
                    .hasNumberOfObservationsWithNameEqualTo(RpccObservations.HOP, 2)
                    .hasAnObservation(o -> o.hasNameEqualTo(RpccObservations.HOP)
                            .hasLowCardinalityKeyValue(RpccObservations.HOP_OUTCOME, "FORWARDED"))
                    .hasAnObservation(o -> o.hasNameEqualTo(RpccObservations.HOP)
                            .hasLowCardinalityKeyValue(RpccObservations.HOP_OUTCOME, "FINISHED")));
            assertThat(registry).hasObservationWithNameEqualTo(RpccObservations.CHAIN).that()
                    .hasBeenStarted().hasBeenStopped()
                    .hasLowCardinalityKeyValue(RpccObservations.SERVER, "s1")
                    .hasLowCardinalityKeyValue(RpccObservations.SERVICE_FUNCTION, "ping")
                    .hasLowCardinalityKeyValue(RpccObservations.OUTCOME, "SUCCESS")
                    .hasLowCardinalityKeyValue(RpccObservations.ERROR_CODE, "NONE")
                    .hasHighCardinalityKeyValue(RpccObservations.HOPS, "2");
            eventually(() -> assertThat(registry).hasObservationWithNameEqualTo(RpccObservations.HOP).that()
                    .hasBeenStopped()
                    .hasLowCardinalityKeyValue(RpccObservations.NODE, "s1")
                    .hasLowCardinalityKeyValue(RpccObservations.SERVICE_FUNCTION, "ping")
                    .hasLowCardinalityKeyValue(RpccObservations.HOP_KIND, "service")
                    .hasLowCardinalityKeyValue(RpccObservations.OUTCOME, "SUCCESS")
                    .hasHighCardinalityKeyValue(RpccObservations.ORIGINATOR, "c1"));
        });
    }

    @Test
    void failuresCarryTheErrorCodeAtBothEnds() {
        TestObservationRegistry registry = TestObservationRegistry.create();
        runner.withBean(ObservationRegistry.class, () -> registry).run(context -> {
            RpccClient client = context.getBean(RpccClient.class);
            assertThat(client.call("s1", "fail", "out of stock").handle((r, e) -> e).join())
                    .isInstanceOf(ServiceFunctionException.class);
            assertThatThrownBy(() -> client.runChain(ChainCall.to("s1", "reject").params("no credential")))
                    .hasMessageContaining("no credential");

            eventually(() -> assertThat(registry).hasNumberOfObservationsWithNameEqualTo(RpccObservations.CHAIN, 2)
                    .hasNumberOfObservationsWithNameEqualTo(RpccObservations.HOP, 2)
                    .hasAnObservation(o -> o.hasNameEqualTo(RpccObservations.HOP)
                            .hasLowCardinalityKeyValue(RpccObservations.SERVICE_FUNCTION, "fail")
                            .hasLowCardinalityKeyValue(RpccObservations.HOP_OUTCOME, "FAILED"))
                    .hasAnObservation(o -> o.hasNameEqualTo(RpccObservations.HOP)
                            .hasLowCardinalityKeyValue(RpccObservations.SERVICE_FUNCTION, "reject")
                            .hasLowCardinalityKeyValue(RpccObservations.HOP_OUTCOME, "FAILED")));
            assertThat(registry).hasAnObservation(o -> o.hasNameEqualTo(RpccObservations.CHAIN)
                    .hasLowCardinalityKeyValue(RpccObservations.SERVICE_FUNCTION, "fail")
                    .hasLowCardinalityKeyValue(RpccObservations.OUTCOME, "ERROR")
                    .hasLowCardinalityKeyValue(RpccObservations.ERROR_CODE, "SERVICE_FUNCTION_FAILED")
                    .assertThatError().isInstanceOf(ServiceFunctionException.class));
            assertThat(registry).hasAnObservation(o -> o.hasNameEqualTo(RpccObservations.HOP)
                    .hasLowCardinalityKeyValue(RpccObservations.SERVICE_FUNCTION, "fail")
                    .hasLowCardinalityKeyValue(RpccObservations.HOP_OUTCOME, "FAILED")
                    .hasLowCardinalityKeyValue(RpccObservations.ERROR_CODE, "SERVICE_FUNCTION_FAILED")
                    // the exception the originator sees, naming the hop
                    .assertThatError().isInstanceOf(ServiceFunctionException.class).hasMessageContaining("out of stock")
                    .hasMessageContaining("hop 1 at 's1'"));
            assertThat(registry).hasAnObservation(o -> o.hasNameEqualTo(RpccObservations.CHAIN)
                    .hasLowCardinalityKeyValue(RpccObservations.SERVICE_FUNCTION, "reject")
                    .hasLowCardinalityKeyValue(RpccObservations.ERROR_CODE, "HOP_REJECTED"));
            assertThat(registry).hasAnObservation(o -> o.hasNameEqualTo(RpccObservations.HOP)
                    .hasLowCardinalityKeyValue(RpccObservations.SERVICE_FUNCTION, "reject")
                    .hasLowCardinalityKeyValue(RpccObservations.ERROR_CODE, "HOP_REJECTED")
                    .assertThatError().isInstanceOf(HopRejectedException.class));
        });
    }

    @Test
    void theTracingIsOutsideTheApplicationsHopDecoratorsAndCurrentWhileTheyRun() {
        TestObservationRegistry registry = TestObservationRegistry.create();
        List<String> seen = new CopyOnWriteArrayList<>();
        HopDecorator mine = start -> {
            seen.add("current: " + (registry.getCurrentObservation() != null));
            return (outcome, timing) -> seen.add("ended " + outcome.getClass().getSimpleName());
        };
        runner.withBean(ObservationRegistry.class, () -> registry).withBean(HopDecorator.class, () -> mine)
                .run(context -> {
                    assertThat(context.getBean(RpccClient.class).call("s1", "ping", null).join().value())
                            .isEqualTo("pong");
                    eventually(() -> assertThat(seen).containsExactly("current: true", "ended Finished"));
                    eventually(() -> assertThat(registry).hasObservationWithNameEqualTo(RpccObservations.HOP).that()
                            .hasBeenStopped().hasLowCardinalityKeyValue(RpccObservations.HOP_OUTCOME, "FINISHED"));
                });
    }

    @Test
    void everyStartModeIsObservedOnceUntilTheCallEnds() {
        TestObservationRegistry registry = TestObservationRegistry.create();
        List<String> told = new CopyOnWriteArrayList<>();
        ChainDecorator mine = start -> ChainDecorator.Decoration.of(start.call(),
                (result, failure) -> told.add(start.mode() + " " + (failure == null ? result.value() : failure)));
        runner.withBean(ObservationRegistry.class, () -> registry).withBean(ChainDecorator.class, () -> mine)
                .run(context -> {
                    RpccClient client = context.getBean(RpccClient.class);
                    assertThat(client.startChain(ChainCall.to("s1", "ping")).join().value()).isEqualTo("pong");
                    assertThat(client.runChain(ChainCall.to("s1", "ping").interactive(true)).value()).isEqualTo("pong");
                    ReplySet<Object> replies = client.startChainWithReplies(ChainCall.to("s1", "ping"), Object.class);
                    replies.whenDone().join();
                    assertThat(replies.result().join().value()).isEqualTo("pong");

                    assertThat(registry).hasNumberOfObservationsWithNameEqualTo(RpccObservations.CHAIN, 3);
                    assertThat(registry).hasObservationWithNameEqualTo(RpccObservations.CHAIN).that()
                            .hasBeenStopped().hasLowCardinalityKeyValue(RpccObservations.OUTCOME, "SUCCESS");
                    // the application's decorators are registered too, inside the tracing's
                    assertThat(told).containsExactly("FUTURE pong", "BLOCKING pong", "WITH_REPLIES pong");
                });
    }

    /**
     * With Micrometer Tracing's OpenTelemetry bridge behind the registry (what Spring Boot's tracing
     * auto-configuration sets up when the application has a {@code Tracer}), a chain is one trace: the
     * client's span is its root, and every span of its hops descends from it.
     */
    @Test
    void withAnOpenTelemetryTracerAChainIsOneTraceFromTheClientThroughItsHops() {
        try (OtelTracing otel = new OtelTracing()) {
            runner.withBean(ObservationRegistry.class, () -> otel.registry).run(context -> {
                RpccClient client = context.getBean(RpccClient.class);
                assertThat(client.runChain(ChainCall.along(StaticRoute.of(StaticRoute.hop("s1", "ping"),
                        StaticRoute.hop("s1", "ping")), null)).value()).isEqualTo("pong");
                eventually(() -> assertThat(otel.exporter.getFinishedSpanItems().stream()
                        .filter(s -> s.getKind() == SpanKind.SERVER)).hasSize(2));

                List<SpanData> spans = otel.exporter.getFinishedSpanItems();
                assertThat(spans.stream().map(SpanData::getTraceId).collect(Collectors.toSet())).as("%s", spans).hasSize(1);
                List<SpanData> roots = spans.stream().filter(s -> !s.getParentSpanContext().isValid()).toList();
                assertThat(roots).as("%s", spans).singleElement().satisfies(root -> {
                    assertThat(root.getKind()).isEqualTo(SpanKind.CLIENT);
                    assertThat(root.getName()).isEqualTo("rpcc chain s1 ping");
                });
                Map<String, SpanData> byId = spans.stream().collect(Collectors.toMap(SpanData::getSpanId, Function.identity()));
                for (SpanData span : spans) { // every span's parent is a span of the trace: one tree
                    assertThat(span.getParentSpanContext().isValid() ? byId.get(span.getParentSpanId()) : roots.get(0))
                            .as("the parent of %s in %s", span, spans).isNotNull();
                }
            });
        }
    }

    @Test
    void metricsAreRecordedInTheApplicationsMeterRegistryAndBoundToTheNodes() {
        SimpleMeterRegistry meters = new SimpleMeterRegistry();
        runner.withBean(MeterRegistry.class, () -> meters).run(context -> {
            assertThat(context).hasSingleBean(RpccMetrics.class).doesNotHaveBean(RpccTracing.class);
            RpccClient client = context.getBean(RpccClient.class);
            assertThat(client.call("s1", "ping", null).join().value()).isEqualTo("pong");
            assertThat(client.call("s1", "fail", "out of stock").handle((r, e) -> e).join())
                    .isInstanceOf(ServiceFunctionException.class);

            eventually(() -> assertThat(meters.find("rpcc.chains.started").counter()).isNotNull()
                    .satisfies(c -> assertThat(c.count()).isEqualTo(2)));
            Set<String> names = meters.getMeters().stream().map(m -> m.getId().getName()).collect(Collectors.toSet());
            assertThat(names).as("the client's and the server's meters").contains("rpcc.chains.started", "rpcc.hop.duration");
            // bound: meters reading the nodes' counters, tagged with their names
            assertThat(meters.getMeters()).anySatisfy(m -> assertThat(m.getId().getTag("node")).isEqualTo("s1"));
            assertThat(meters.getMeters()).anySatisfy(m -> assertThat(m.getId().getTag("node")).isEqualTo("c1"));
        });
    }

    /**
     * With Spring Boot's metrics auto-configuration (as the actuator has it), the client's meters are tagged
     * with the application's name, not with the client's node name, whose random suffix changes at every start.
     */
    @Test
    void theClientsMetersAreTaggedWithTheApplicationsNameWhichSurvivesRestarts() {
        new ApplicationContextRunner()
                .withConfiguration(AutoConfigurations.of(MetricsAutoConfiguration.class,
                        SimpleMetricsExportAutoConfiguration.class, CompositeMeterRegistryAutoConfiguration.class,
                        RpccAutoConfiguration.class, RpccMetricsAutoConfiguration.class))
                .withPropertyValues("spring.application.name=checkout", "rpcc.server.name=s1")
                .withBean(TestServices.Inventory.class)
                .run(context -> {
                    RpccClient client = context.getBean(RpccClient.class);
                    assertThat(client.name()).matches("checkout-[0-9a-f]{8}");
                    assertThat(client.call("s1", "ping", null).join().value()).isEqualTo("pong");
                    MeterRegistry meters = context.getBean(MeterRegistry.class);
                    assertThat(meters.find("rpcc.connections.open").tag("node", "checkout").meters()).isNotEmpty();
                    assertThat(meters.find("rpcc.connections.open").tag("node", "s1").meters()).isNotEmpty();
                    assertThat(meters.getMeters()).noneSatisfy(m -> assertThat(m.getId().getTag("node"))
                            .isEqualTo(client.name()));
                });
    }

    @Test
    void eachIsTurnedOffByItsPropertyAndNeitherIsOnWithoutItsRegistry() {
        TestObservationRegistry registry = TestObservationRegistry.create();
        runner.withBean(ObservationRegistry.class, () -> registry).withBean(MeterRegistry.class, SimpleMeterRegistry::new)
                .withPropertyValues("rpcc.tracing.enabled=false", "rpcc.metrics.enabled=false").run(context -> {
                    assertThat(context).doesNotHaveBean(RpccTracing.class).doesNotHaveBean(RpccMetrics.class);
                    assertThat(context.getBean(RpccClient.class).call("s1", "ping", null).join().value()).isEqualTo("pong");
                    assertThat(registry).doesNotHaveAnyObservation();
                    assertThat(context.getBean(MeterRegistry.class).getMeters()).isEmpty();
                });
        runner.withBean(ObservationRegistry.class, () -> registry).withBean(MeterRegistry.class, SimpleMeterRegistry::new)
                .run(context -> assertThat(context).hasSingleBean(RpccTracing.class).hasSingleBean(RpccMetrics.class));
        runner.run(context -> {
            assertThat(context).doesNotHaveBean(RpccTracing.class).doesNotHaveBean(RpccMetrics.class);
            assertThat(context.getBean(RpccClient.class).call("s1", "ping", null).join().value()).isEqualTo("pong");
        });
    }

    @Test
    void theApplicationsOwnTracingAndMetricsReplaceTheAutoConfiguredOnes() {
        TestObservationRegistry mine = TestObservationRegistry.create();
        SimpleMeterRegistry myMeters = new SimpleMeterRegistry();
        runner.withBean(ObservationRegistry.class, ObservationRegistry::create)
                .withBean(MeterRegistry.class, SimpleMeterRegistry::new)
                .withBean(RpccTracing.class, () -> RpccTracing.of(mine))
                .withBean(RpccMetrics.class, () -> RpccMetrics.of(myMeters))
                .run(context -> {
                    assertThat(context).hasSingleBean(RpccTracing.class).hasSingleBean(RpccMetrics.class);
                    assertThat(context.getBean(RpccClient.class).call("s1", "ping", null).join().value()).isEqualTo("pong");
                    assertThat(mine).hasNumberOfObservationsWithNameEqualTo(RpccObservations.CHAIN, 1);
                    assertThat(myMeters.find("rpcc.chains.started").counter()).isNotNull();
                });
    }

    /** Retries {@code check} for up to 10 s: a hop's observation stops when the hop is done, off the client's thread. */
    private static void eventually(Runnable check) throws InterruptedException {
        long end = System.nanoTime() + 10_000_000_000L;
        while (true) {
            try {
                check.run();
                return;
            } catch (AssertionError e) {
                if (System.nanoTime() > end) {
                    throw e;
                }
                Thread.sleep(10);
            }
        }
    }
}
