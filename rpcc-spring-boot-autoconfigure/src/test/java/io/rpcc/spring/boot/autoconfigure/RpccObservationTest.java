package io.rpcc.spring.boot.autoconfigure;

import static io.micrometer.observation.tck.TestObservationRegistryAssert.assertThat;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.micrometer.observation.ObservationRegistry;
import io.micrometer.observation.tck.TestObservationRegistry;
import io.rpcc.client.ChainCall;
import io.rpcc.client.ChainDecorator;
import io.rpcc.client.ReplySet;
import io.rpcc.client.RpccClient;
import io.rpcc.core.HopRejectedException;
import io.rpcc.core.ServiceFunctionException;
import io.rpcc.core.StaticRoute;
import io.rpcc.server.HopDecorator;
import io.rpcc.spring.boot.observation.ObservationHopDecorator;
import io.rpcc.spring.boot.observation.RpccObservations;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

/** Observations of chains at the client and hops at the server, recorded in a TestObservationRegistry. */
class RpccObservationTest {
    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(RpccAutoConfiguration.class,
                    RpccHealthContributorAutoConfiguration.class, RpccObservationAutoConfiguration.class))
            .withPropertyValues("rpcc.server.name=s1", "rpcc.client.name=c1")
            .withBean(TestServices.Inventory.class);

    @Test
    void aChainIsObservedAtTheClientAndEachHopAtTheServer() {
        TestObservationRegistry registry = TestObservationRegistry.create();
        runner.withBean(ObservationRegistry.class, () -> registry).run(context -> {
            assertThat(context).hasSingleBean(ObservationHopDecorator.class);
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
                    .hasLowCardinalityKeyValue(RpccObservations.CLIENT, "c1")
                    .hasLowCardinalityKeyValue(RpccObservations.SERVER, "s1")
                    .hasLowCardinalityKeyValue(RpccObservations.SERVICE, "ping")
                    .hasLowCardinalityKeyValue(RpccObservations.OUTCOME, "SUCCESS")
                    .hasLowCardinalityKeyValue(RpccObservations.ERROR_CODE, "NONE")
                    .hasHighCardinalityKeyValue(RpccObservations.HOPS, "2");
            eventually(() -> assertThat(registry).hasObservationWithNameEqualTo(RpccObservations.HOP).that()
                    .hasBeenStopped()
                    .hasLowCardinalityKeyValue(RpccObservations.NODE, "s1")
                    .hasLowCardinalityKeyValue(RpccObservations.SERVICE, "ping")
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
                            .hasLowCardinalityKeyValue(RpccObservations.SERVICE, "fail")
                            .hasLowCardinalityKeyValue(RpccObservations.HOP_OUTCOME, "FAILED"))
                    .hasAnObservation(o -> o.hasNameEqualTo(RpccObservations.HOP)
                            .hasLowCardinalityKeyValue(RpccObservations.SERVICE, "reject")
                            .hasLowCardinalityKeyValue(RpccObservations.HOP_OUTCOME, "FAILED")));
            assertThat(registry).hasAnObservation(o -> o.hasNameEqualTo(RpccObservations.CHAIN)
                    .hasLowCardinalityKeyValue(RpccObservations.SERVICE, "fail")
                    .hasLowCardinalityKeyValue(RpccObservations.OUTCOME, "ERROR")
                    .hasLowCardinalityKeyValue(RpccObservations.ERROR_CODE, "SERVICE_FUNCTION_FAILED")
                    .assertThatError().isInstanceOf(ServiceFunctionException.class));
            assertThat(registry).hasAnObservation(o -> o.hasNameEqualTo(RpccObservations.HOP)
                    .hasLowCardinalityKeyValue(RpccObservations.SERVICE, "fail")
                    .hasLowCardinalityKeyValue(RpccObservations.HOP_OUTCOME, "FAILED")
                    .hasLowCardinalityKeyValue(RpccObservations.ERROR_CODE, "SERVICE_FUNCTION_FAILED")
                    // the exception the originator sees, naming the hop
                    .assertThatError().isInstanceOf(ServiceFunctionException.class).hasMessageContaining("out of stock")
                    .hasMessageContaining("hop 1 at 's1'"));
            assertThat(registry).hasAnObservation(o -> o.hasNameEqualTo(RpccObservations.CHAIN)
                    .hasLowCardinalityKeyValue(RpccObservations.SERVICE, "reject")
                    .hasLowCardinalityKeyValue(RpccObservations.ERROR_CODE, "HOP_REJECTED"));
            assertThat(registry).hasAnObservation(o -> o.hasNameEqualTo(RpccObservations.HOP)
                    .hasLowCardinalityKeyValue(RpccObservations.SERVICE, "reject")
                    .hasLowCardinalityKeyValue(RpccObservations.ERROR_CODE, "HOP_REJECTED")
                    .assertThatError().isInstanceOf(HopRejectedException.class));
        });
    }

    @Test
    void theObservationIsTheOutermostHopDecoratorAndCurrentWhileTheHopRuns() {
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
                    // the application's decorators are registered too, inside the observation
                    assertThat(told).containsExactly("FUTURE pong", "BLOCKING pong", "WITH_REPLIES pong");
                });
    }

    @Test
    void withoutARegistryNothingIsObservedAndTheClientStillWorks() {
        runner.run(context -> {
            assertThat(context).doesNotHaveBean(ObservationHopDecorator.class);
            assertThat(context.getBean(RpccClient.class).call("s1", "ping", null).join().value())
                    .isEqualTo("pong");
        });
    }
}
