/**
 * The API shared by every rpcc node: the chain model ({@link io.rpcc.core.ServiceFunction},
 * {@link io.rpcc.core.ChainingFunction}, {@link io.rpcc.core.NextHop}, {@link io.rpcc.core.ChainState},
 * {@link io.rpcc.core.ChainContext}), the results and errors a chain ends with
 * ({@link io.rpcc.core.ChainResult}, {@link io.rpcc.core.ChainException} and its subtypes), the
 * settings common to clients and servers ({@code io.rpcc.core.runtime.NodeBuilder}, in rpcc-core) and the types that
 * cross the wire ({@link io.rpcc.core.TypeRegistry}).
 *
 * <p>Everything here is non-null unless annotated {@link org.jspecify.annotations.Nullable}.
 * API marked {@link io.rpcc.core.UnstableApi} may change in a minor release. Packages named
 * {@code internal} are rpcc's implementation: do not use them.
 */
@NullMarked
package io.rpcc.core;

import org.jspecify.annotations.NullMarked;
