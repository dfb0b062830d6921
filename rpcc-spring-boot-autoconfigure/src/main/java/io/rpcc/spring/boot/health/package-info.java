/**
 * The actuator health contributor of the auto-configured rpcc server
 * ({@link io.rpcc.spring.boot.health.RpccServerHealthIndicator}), active when
 * {@code spring-boot-health} is on the class path.
 */
@NullMarked
package io.rpcc.spring.boot.health;

import org.jspecify.annotations.NullMarked;
