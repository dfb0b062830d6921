/**
 * Existing services as rpcc service functions, without changing them (paper section 3.5): a node
 * placed next to a legacy service registers its remote procedures as service functions, so that a
 * chain can call them as hops.
 *
 * <ul>
 *   <li>{@link io.rpcc.legacy.LegacyGrpc}: every unary method of a gRPC service, from its
 *       {@code ServiceDescriptor} and a {@code Channel} to the service; the request and response
 *       messages travel in the chain as themselves, serialized with the method's own marshallers.</li>
 *   <li>{@link io.rpcc.legacy.LegacyHttp}: an HTTP/JSON endpoint (method, URL template, JSON in and
 *       out), called with the JDK's {@code HttpClient}.</li>
 *   <li>{@link io.rpcc.legacy.LegacyIdentity}: what the legacy service is told about who started the
 *       chain (the chain's credential, else a configured token, and the originator's name).</li>
 *   <li>{@link io.rpcc.legacy.LegacyCallException}: a failed legacy call, naming the legacy method, its
 *       status, and the hop and node that called it.</li>
 * </ul>
 *
 * <p>See docs/guides/legacy-services.md. Everything here is non-null unless annotated
 * {@link org.jspecify.annotations.Nullable}.
 */
@NullMarked
package io.rpcc.legacy;

import org.jspecify.annotations.NullMarked;
