package io.rpcc.spring.boot.autoconfigure;

import io.micrometer.observation.ObservationRegistry;
import io.rpcc.spring.boot.observation.ObservationServerInterceptor;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.context.annotation.Bean;

/**
 * Observes the server's hops ({@link ObservationServerInterceptor}) when the application has an
 * {@link ObservationRegistry} bean (Spring Boot makes one with {@code spring-boot-micrometer-observation},
 * e.g. through the actuator). The client's calls are observed, in the same registry, by the
 * {@code ObservationChainDecorator} that {@code RpccAutoConfiguration} registers on the client.
 */
@AutoConfiguration(afterName = "org.springframework.boot.micrometer.observation.autoconfigure.ObservationAutoConfiguration")
@ConditionalOnBean(ObservationRegistry.class)
public class RpccObservationAutoConfiguration {

    /** One observation per hop at the server. */
    @Bean
    @ConditionalOnMissingBean
    ObservationServerInterceptor rpccObservationServerInterceptor(ObservationRegistry registry) {
        return new ObservationServerInterceptor(registry);
    }
}
