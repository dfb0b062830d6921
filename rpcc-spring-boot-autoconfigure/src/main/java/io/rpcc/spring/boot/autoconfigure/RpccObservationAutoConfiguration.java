package io.rpcc.spring.boot.autoconfigure;

import io.micrometer.observation.ObservationRegistry;
import io.rpcc.spring.boot.observation.ObservationHopDecorator;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.context.annotation.Bean;
import org.springframework.core.Ordered;
import org.springframework.core.annotation.Order;

/**
 * Observes the server's hops ({@link ObservationHopDecorator}, the server's outermost hop decorator,
 * so that it sees the outcome the others lead to) when the application has an
 * {@link ObservationRegistry} bean (Spring Boot makes one with {@code spring-boot-micrometer-observation},
 * e.g. through the actuator). The client's calls are observed, in the same registry, by the
 * {@code ObservationChainDecorator} that {@code RpccAutoConfiguration} registers on the client.
 */
@AutoConfiguration(afterName = "org.springframework.boot.micrometer.observation.autoconfigure.ObservationAutoConfiguration")
@ConditionalOnBean(ObservationRegistry.class)
public class RpccObservationAutoConfiguration {

    /** One observation per hop at the server, from its start until it is done, with its outcome. */
    @Bean
    @ConditionalOnMissingBean
    @Order(Ordered.HIGHEST_PRECEDENCE)
    ObservationHopDecorator rpccObservationHopDecorator(ObservationRegistry registry) {
        return new ObservationHopDecorator(registry);
    }
}
