/**
 * The protocol between nodes and a chaining-function repository node
 * ({@link io.rpcc.repository.internal.RepositoryProtocol}: two service functions and their messages,
 * in built-in types only) and both of its sides: {@link io.rpcc.repository.internal.RepositoryEndpoint}
 * serves a {@link io.rpcc.repository.ChainingFunctionRepository} from a node, and
 * {@link io.rpcc.repository.internal.RepositoryClient} stores and fetches sources from one.
 *
 * <p>Implementation, not API: anything in this package may change or disappear at any time, in any
 * release, and applications must not use it. rpcc-server and rpcc-client use it too.
 */
package io.rpcc.repository.internal;
