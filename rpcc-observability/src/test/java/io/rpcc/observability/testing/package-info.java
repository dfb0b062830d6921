/**
 * Test support of rpcc-observability, in its test jar: {@link io.rpcc.observability.testing.OtelTracing},
 * an observation registry that records spans through the OpenTelemetry SDK in memory.
 */
@NullMarked
package io.rpcc.observability.testing;

import org.jspecify.annotations.NullMarked;
