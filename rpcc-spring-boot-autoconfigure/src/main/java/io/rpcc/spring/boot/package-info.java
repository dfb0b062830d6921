/**
 * rpcc in a Spring Boot application: {@link io.rpcc.spring.boot.RpccService} beans whose
 * {@code @ServiceMethod} methods the auto-configured server hosts, the {@code rpcc.*} properties
 * ({@link io.rpcc.spring.boot.RpccProperties}), builder customizers and the lifecycle that ties each
 * node to the application context ({@link io.rpcc.spring.boot.RpccNodeLifecycle}).
 */
@NullMarked
package io.rpcc.spring.boot;

import org.jspecify.annotations.NullMarked;
