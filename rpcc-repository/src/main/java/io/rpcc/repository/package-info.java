/**
 * The chaining-function repository (paper section 3.2): the storage contract
 * {@link io.rpcc.repository.ChainingFunctionRepository} and a filesystem and an in-memory store. A
 * server serves a store with {@code RpccServer.builder(name).repository(store)}, so that clients
 * upload a function once and servers fetch it by id; the protocol between them, and both sides of
 * it, are this module's implementation ({@code io.rpcc.repository.internal}), which rpcc-server and
 * rpcc-client use.
 *
 * <p>Everything here is non-null unless annotated {@link org.jspecify.annotations.Nullable}.
 */
@NullMarked
package io.rpcc.repository;

import org.jspecify.annotations.NullMarked;
