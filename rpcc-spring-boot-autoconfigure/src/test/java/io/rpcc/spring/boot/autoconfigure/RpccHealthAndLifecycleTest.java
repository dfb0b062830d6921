package io.rpcc.spring.boot.autoconfigure;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.rpcc.client.ChainCall;
import io.rpcc.client.RpccClient;
import io.rpcc.core.ChainResult;
import io.rpcc.core.ChainException;
import io.rpcc.core.StaticNameResolver;
import io.rpcc.server.RpccServer;
import io.rpcc.spring.boot.RpccNodeLifecycle;
import io.rpcc.spring.boot.health.RpccServerHealthIndicator;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.health.contributor.Health;
import org.springframework.boot.health.contributor.HealthIndicator;
import org.springframework.boot.health.contributor.Status;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/** The health contributor, and the nodes' lifecycle: started with the context, drained when it closes. */
class RpccHealthAndLifecycleTest {
    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(RpccAutoConfiguration.class,
                    RpccHealthContributorAutoConfiguration.class, RpccTracingAutoConfiguration.class,
                    RpccMetricsAutoConfiguration.class))
            .withPropertyValues("rpcc.server.name=s1");

    @Test
    void healthIsUpWithTheServersCountersWhileItRunsAndDownOnceItStops() {
        runner.run(context -> {
            assertThat(context).hasSingleBean(RpccServerHealthIndicator.class).hasBean("rpccHealthIndicator");
            RpccServerHealthIndicator health = context.getBean(RpccServerHealthIndicator.class);
            context.getBean(RpccClient.class).call("s1", "nothing-here", null).exceptionally(e -> null).join();
            Health up = health.health();
            assertThat(up.getStatus()).isEqualTo(Status.UP);
            assertThat(up.getDetails()).containsEntry("name", "s1")
                    .containsEntry("address", context.getBean(RpccServer.class).address().toString())
                    .containsKeys("connectionsOpen", "malformedFrames", "refusals", "functionCacheHits");
            assertThat((Long) up.getDetails().get("framesReceived")).isPositive();

            context.getBean("rpccServerLifecycle", RpccNodeLifecycle.class).stop();
            Health down = health.health();
            assertThat(down.getStatus()).isEqualTo(Status.DOWN);
            assertThat(down.getDetails()).containsEntry("name", "s1").containsKey("reason");
        });
    }

    @Test
    void healthCanBeTurnedOffAndNeedsSpringBootHealth() {
        runner.withPropertyValues("management.health.rpcc.enabled=false")
                .run(context -> assertThat(context).hasSingleBean(RpccServer.class)
                        .doesNotHaveBean(RpccServerHealthIndicator.class));
        runner.withClassLoader(new FilteredClassLoader(HealthIndicator.class))
                .run(context -> assertThat(context).hasSingleBean(RpccServer.class)
                        .doesNotHaveBean("rpccHealthIndicator"));
    }

    /**
     * Without the drain (a lifecycle that closed the server, or shut it down with no grace), the running
     * hop would end with a NodeClosedException. That control is not run here: a server closed with a hop
     * running leaves the JVM unable to deliver the next servers' results (an rpcc-core issue reported to
     * the coordinator), which would break the tests after it.
     */
    @Test
    void closingTheContextLetsRunningHopsFinishThenRefusesNewOnes() throws Exception {
        runner.withUserConfiguration(SlowService.class).withPropertyValues("rpcc.shutdown-grace=10s").run(context -> {
            InetSocketAddress address = context.getBean(RpccServer.class).address();
            StaticNameResolver names = new StaticNameResolver().register("s1", address);
            try (RpccClient outside = RpccClient.builder().resolver(names).timeout(Duration.ofSeconds(20)).build().start()) {
                CompletableFuture<ChainResult> running = outside.call("s1", "slow", "first");
                assertThat(context.getBean(TestServices.Slow.class).entered.await(10, TimeUnit.SECONDS)).isTrue();

                ((ConfigurableApplicationContext) context.getSourceApplicationContext()).close();

                // the hop that was running when the context closed finished: drained, not abandoned
                assertThat(running.get(10, TimeUnit.SECONDS).value()).isEqualTo("first done");
                // and the server is gone (a request written as the connection closed is lost: a short timeout bounds it)
                assertThatThrownBy(() -> outside.runChain(ChainCall.to("s1", "slow").params("second")
                        .timeout(Duration.ofSeconds(2)))).isInstanceOf(ChainException.class);
            }
        });
    }

    @Configuration(proxyBeanMethods = false)
    static class SlowService {
        @Bean
        TestServices.Slow slow() {
            return new TestServices.Slow();
        }
    }
}
