package io.rpcc.spring.boot.autoconfigure;

import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.config.MeterFilter;
import io.rpcc.observability.RpccMetrics;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.context.annotation.Bean;

/**
 * Measures the auto-configured server and client when the application has a {@link MeterRegistry} bean
 * (Spring Boot makes one with {@code spring-boot-micrometer-metrics}, e.g. through the actuator; with
 * {@code micrometer-registry-prometheus}, {@code /actuator/prometheus} shows the meters) and
 * {@code rpcc.metrics.enabled} is not {@code false}: an {@link RpccMetrics} bean, which
 * {@link RpccAutoConfiguration} applies to the server's and the client's builders and binds to the
 * nodes it builds. An application's own {@code RpccMetrics} bean replaces it.
 *
 * <p>The client's meters are tagged {@code node=<spring.application.name>} rather than with its
 * generated node name, whose random suffix would start new series at every restart (a
 * {@link MeterFilter} bean, which Spring Boot applies to the registries it configures); a client
 * named by {@code rpcc.client.name} keeps that name.
 */
@AutoConfiguration(afterName = {
        "org.springframework.boot.micrometer.metrics.autoconfigure.MetricsAutoConfiguration",
        "org.springframework.boot.micrometer.metrics.autoconfigure.CompositeMeterRegistryAutoConfiguration"})
@ConditionalOnBean(MeterRegistry.class)
@ConditionalOnBooleanProperty(name = "rpcc.metrics.enabled", matchIfMissing = true)
public class RpccMetricsAutoConfiguration {

    /** Metrics in the application's meter registry. */
    @Bean
    @ConditionalOnMissingBean
    RpccMetrics rpccMetrics(MeterRegistry registry) {
        return RpccMetrics.of(registry);
    }

    /** {@code node=<the client's generated name>} becomes {@code node=<spring.application.name>}. */
    @Bean
    MeterFilter rpccClientNodeTag(RpccAutoConfiguration.ClientName clientName) {
        String generated = clientName.name();
        String tag = clientName.metricsTag();
        return tag == null ? new MeterFilter() { }
                : MeterFilter.replaceTagValues("node", value -> value.equals(generated) ? tag : value);
    }
}
