package io.rpcc.spring.boot.autoconfigure;

import io.rpcc.client.RpccClient;
import io.rpcc.core.NameResolver;
import io.rpcc.server.RpccServer;
import io.rpcc.spring.boot.RpccNodeLifecycle;
import io.rpcc.spring.boot.RpccProperties;
import io.rpcc.spring.boot.health.RpccClientHealthIndicator;
import io.rpcc.spring.boot.health.RpccServerHealthIndicator;
import java.util.List;
import org.springframework.beans.factory.annotation.Qualifier;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.health.autoconfigure.contributor.ConditionalOnEnabledHealthIndicator;
import org.springframework.boot.health.contributor.HealthIndicator;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * Adds the {@code rpcc} health component when the application has {@code spring-boot-health} (e.g.
 * through {@code spring-boot-starter-actuator}): the server's health ({@link RpccServerHealthIndicator})
 * when the application has an rpcc server, else, for a client-only application, whether its client
 * runs and its peers are reachable ({@link RpccClientHealthIndicator}).
 * {@code management.health.rpcc.enabled=false} turns it off.
 */
@AutoConfiguration(after = RpccAutoConfiguration.class)
@ConditionalOnClass(HealthIndicator.class)
@ConditionalOnEnabledHealthIndicator("rpcc")
public class RpccHealthContributorAutoConfiguration {

    /** With a server: the server's health. */
    @Configuration(proxyBeanMethods = false)
    @ConditionalOnBean(RpccServer.class)
    static class ServerHealthConfiguration {

        /** The server's health, named {@code rpcc} after the bean. */
        @Bean
        @ConditionalOnMissingBean(name = "rpccHealthIndicator")
        RpccServerHealthIndicator rpccHealthIndicator(RpccServer server,
                                                      @Qualifier("rpccServerLifecycle") RpccNodeLifecycle lifecycle) {
            return new RpccServerHealthIndicator(server, lifecycle);
        }
    }

    /** Client-only: the client's and its peers' health. */
    @Configuration(proxyBeanMethods = false)
    @ConditionalOnBean(RpccClient.class)
    @ConditionalOnMissingBean(RpccServer.class)
    static class ClientHealthConfiguration {

        /** Whether the client runs and reaches the nodes of {@code rpcc.peers}, named {@code rpcc} after the bean. */
        @Bean
        @ConditionalOnMissingBean(name = "rpccHealthIndicator")
        RpccClientHealthIndicator rpccHealthIndicator(RpccClient client, NameResolver names, RpccProperties properties,
                                                      @Qualifier("rpccClientLifecycle") RpccNodeLifecycle lifecycle) {
            return new RpccClientHealthIndicator(client, lifecycle, names, List.copyOf(properties.getPeers().keySet()),
                    RpccClientHealthIndicator.DEFAULT_PROBE_TIMEOUT);
        }
    }
}
