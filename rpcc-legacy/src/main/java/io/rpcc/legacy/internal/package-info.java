/**
 * The wrappers' calls: {@link io.rpcc.legacy.internal.GrpcMethodFunction} (one unary gRPC method),
 * {@link io.rpcc.legacy.internal.HttpEndpointFunction} (one HTTP/JSON endpoint) and
 * {@link io.rpcc.legacy.internal.MarshallerSerializer} (a gRPC message in a chain, as its marshaller's bytes).
 *
 * <p>Implementation, not API: anything in this package may change or disappear at any time, in any
 * release, and applications must not use it.
 */
package io.rpcc.legacy.internal;
