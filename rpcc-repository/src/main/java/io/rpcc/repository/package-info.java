/**
 * The chaining-function repository (paper section 3.2): the storage contract
 * {@link io.rpcc.repository.ChainingFunctionRepository}, a filesystem and an in-memory store, and
 * {@link io.rpcc.repository.RepositoryService}, which serves a store from an rpcc node so that
 * clients upload a function once and servers fetch it by id.
 *
 * <p>Everything here is non-null unless annotated {@link org.jspecify.annotations.Nullable}.
 */
@NullMarked
package io.rpcc.repository;

import org.jspecify.annotations.NullMarked;
