/**
 * Spring Boot auto-configuration of rpcc: {@link io.rpcc.spring.boot.autoconfigure.RpccAutoConfiguration}
 * (server, client, resolver, types, lifecycles),
 * {@link io.rpcc.spring.boot.autoconfigure.RpccHealthContributorAutoConfiguration} (actuator health) and
 * {@link io.rpcc.spring.boot.autoconfigure.RpccObservationAutoConfiguration} (Micrometer observations).
 */
@NullMarked
package io.rpcc.spring.boot.autoconfigure;

import org.jspecify.annotations.NullMarked;
