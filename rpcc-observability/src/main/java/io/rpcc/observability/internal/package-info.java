/**
 * The implementation of {@link io.rpcc.observability.RpccMetrics}: the decorators that measure chains
 * and hops, and the meters that read a node's counters. Not an API: it changes with rpcc.
 */
@NullMarked
package io.rpcc.observability.internal;

import org.jspecify.annotations.NullMarked;
