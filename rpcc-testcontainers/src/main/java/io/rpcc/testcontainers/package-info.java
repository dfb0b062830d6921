/**
 * rpcc nodes in Docker containers for Testcontainers-based integration tests:
 * {@link io.rpcc.testcontainers.RpccNodeContainer}.
 */
@NullMarked
package io.rpcc.testcontainers;

import org.jspecify.annotations.NullMarked;
