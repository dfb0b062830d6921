/**
 * The public entry points of the rpcc runtime (the {@code rpcc-core} module): the settings every node
 * shares, client or server ({@link io.rpcc.core.runtime.NodeBuilder}, which {@code RpccClient.Builder}
 * and {@code RpccServer.Builder} extend), and {@link io.rpcc.core.runtime.FunctionCheck}, which compiles
 * a chaining function exactly as a node would (for a build or a test).
 *
 * <p>The API these classes speak (chain model, exceptions, {@code TypeRegistry}, {@code NodeTls}) is in
 * {@link io.rpcc.core} (module {@code rpcc-api}).
 */
@NullMarked
package io.rpcc.core.runtime;

import org.jspecify.annotations.NullMarked;
