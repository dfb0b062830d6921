/**
 * Spring Boot auto-configuration of rpcc: {@link io.rpcc.spring.boot.autoconfigure.RpccAutoConfiguration}
 * (server, client, resolver, types, lifecycles),
 * {@link io.rpcc.spring.boot.autoconfigure.RpccHealthContributorAutoConfiguration} (actuator health),
 * {@link io.rpcc.spring.boot.autoconfigure.RpccTracingAutoConfiguration} (traces, with an {@code ObservationRegistry})
 * and {@link io.rpcc.spring.boot.autoconfigure.RpccMetricsAutoConfiguration} (metrics, with a {@code MeterRegistry}).
 */
@NullMarked
package io.rpcc.spring.boot.autoconfigure;

import org.jspecify.annotations.NullMarked;
