/**
 * JavaScript chaining functions for rpcc, on GraalJS. Add this module to a node's class path and
 * {@link io.rpcc.core.ChainingFunctionSource#javascript(String)} functions run there, in the same
 * sandbox limits as Java ones. A function is a script that evaluates to
 * {@code (state, result) => nextHop}:
 *
 * <pre>
 * (state, result) => state.step === 'region'
 *     ? rpcc.call('inventory-' + result, 'reserve', state.order, {...state, step: 'reserve'})
 *     : rpcc.end(result)
 * </pre>
 *
 * <p>Everything here is non-null unless annotated {@link org.jspecify.annotations.Nullable}.
 */
@NullMarked
package io.rpcc.js;

import org.jspecify.annotations.NullMarked;
