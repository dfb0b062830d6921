package io.rpcc.spring.boot.autoconfigure;

import io.micrometer.observation.ObservationRegistry;
import io.rpcc.observability.RpccTracing;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.context.annotation.Bean;

/**
 * Traces the auto-configured server's hops and client's chains when the application has an
 * {@link ObservationRegistry} bean (Spring Boot makes one with {@code spring-boot-micrometer-observation},
 * e.g. through the actuator; with Micrometer Tracing's bridge to OpenTelemetry or Brave, and so with a
 * {@code Tracer} bean, the registry turns observations into spans) and {@code rpcc.tracing.enabled} is not
 * {@code false}: an {@link RpccTracing} bean, which {@link RpccAutoConfiguration} applies to the server's and
 * the client's builders before the application's decorators (so that its spans enclose theirs). An
 * application's own {@code RpccTracing} bean replaces it.
 */
@AutoConfiguration(afterName = "org.springframework.boot.micrometer.observation.autoconfigure.ObservationAutoConfiguration")
@ConditionalOnBean(ObservationRegistry.class)
@ConditionalOnBooleanProperty(name = "rpcc.tracing.enabled", matchIfMissing = true)
public class RpccTracingAutoConfiguration {

    /** Tracing in the application's observation registry. */
    @Bean
    @ConditionalOnMissingBean
    RpccTracing rpccTracing(ObservationRegistry registry) {
        return RpccTracing.of(registry);
    }
}
