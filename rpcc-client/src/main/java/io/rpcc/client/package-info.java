/**
 * Starting chains and receiving what they return: {@link io.rpcc.client.RpccClient} (built, then
 * started), {@link io.rpcc.client.ChainCall} (one chain's settings) and
 * {@link io.rpcc.client.ReplySet} (a multi-return chain's partial replies and final result).
 *
 * <p>Everything here is non-null unless annotated {@link org.jspecify.annotations.Nullable}.
 */
@NullMarked
package io.rpcc.client;

import org.jspecify.annotations.NullMarked;
