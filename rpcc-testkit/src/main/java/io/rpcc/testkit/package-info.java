/**
 * Testing rpcc across a wide area on one machine: {@link io.rpcc.testkit.WanEmulator} (delays and
 * bandwidth between emulated sites, and faults: cut, stall, reset, a frame dropped midway),
 * {@link io.rpcc.testkit.WanTopology} and {@link io.rpcc.testkit.WanCluster}, a JUnit 5 extension
 * that starts real nodes in those sites (and kills and restarts them).
 *
 * <p>Everything here is non-null unless annotated {@link org.jspecify.annotations.Nullable}.
 */
@NullMarked
@UnstableApi
package io.rpcc.testkit;

import io.rpcc.core.UnstableApi;
import org.jspecify.annotations.NullMarked;
