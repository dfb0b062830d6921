package io.rpcc.spring.boot.autoconfigure;

import io.rpcc.server.RpccServer;
import io.rpcc.spring.boot.RpccNodeLifecycle;
import io.rpcc.spring.boot.health.RpccServerHealthIndicator;
import org.springframework.beans.factory.annotation.Qualifier;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.health.autoconfigure.contributor.ConditionalOnEnabledHealthIndicator;
import org.springframework.boot.health.contributor.HealthIndicator;
import org.springframework.context.annotation.Bean;

/**
 * Adds the {@code rpcc} health component ({@link RpccServerHealthIndicator}) when the application has
 * {@code spring-boot-health} (e.g. through {@code spring-boot-starter-actuator}) and an rpcc server;
 * {@code management.health.rpcc.enabled=false} turns it off.
 */
@AutoConfiguration(after = RpccAutoConfiguration.class)
@ConditionalOnClass(HealthIndicator.class)
@ConditionalOnBean(RpccServer.class)
@ConditionalOnEnabledHealthIndicator("rpcc")
public class RpccHealthContributorAutoConfiguration {

    /** The server's health, named {@code rpcc} after the bean. */
    @Bean
    @ConditionalOnMissingBean(name = "rpccHealthIndicator")
    RpccServerHealthIndicator rpccHealthIndicator(RpccServer server,
                                                  @Qualifier("rpccServerLifecycle") RpccNodeLifecycle lifecycle) {
        return new RpccServerHealthIndicator(server, lifecycle);
    }
}
